import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  LISTINGS_SUBJECTS,
  MAX_INGEST_BATCH,
  PROPERTY_DOCUMENT_CONTEXT,
  readPropertyPage,
  type IngestAdvertsReply,
  type PricePerMeterReply,
  type PropertyDocument,
} from '@immo/contracts';
import { parsePropertyCriteria, searchVariables, type CriteriaEndpoint, type PropertyCriteria } from '@immo/property-criteria';
import { AdminOnly } from '../auth/public.decorator';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection, hydraCollectionBytes } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import { validateBody } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { chunkBySize, mergeReplies } from './ingest-chunks';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ingesting a full batch appends up to a thousand commits: give it longer than a query. */
// A 1000-snapshot batch takes well under a second; a listings instance that died mid-batch should
// not keep the crawler waiting a minute before it retries.
const INGEST_TIMEOUT_MS = 15_000;

/** Names the query parameters a request gave that the endpoint does not know. */
export const IGNORED_PARAMETERS_HEADER = 'X-Ignored-Parameters';

const mappingsOf = (endpoint: CriteriaEndpoint) => searchVariables(endpoint).map((variable) => ({ variable, property: null, required: false }));
const PROPERTY_SEARCH_MAPPINGS = mappingsOf('properties');
const SIMILAR_SEARCH_MAPPINGS = mappingsOf('similar');
const PRICE_PER_METER_MAPPINGS = mappingsOf('price_per_meter');
const PRICE_PER_METER_CONTEXT = '/contexts/PricePerMeter';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The criteria of a search query, or a 400 naming each bad parameter. Unknown parameters are
 * ignored (as API Platform does) but named in a header: a misspelt filter that silently widens a
 * search is what clients of the original service complain about.
 */
function parsedCriteria(query: ParsedQuery, endpoint: CriteriaEndpoint, reply: FastifyReply): PropertyCriteria {
  const parsed = parsePropertyCriteria(query, { endpoint });
  if (!parsed.ok) {
    throw ProblemException.badRequest(`Invalid query parameters: ${parsed.violations.map((v) => v.propertyPath).join(', ')}`, parsed.violations);
  }
  if (parsed.ignored.length > 0) void reply.header(IGNORED_PARAMETERS_HEADER, parsed.ignored.join(', '));
  return parsed.criteria;
}

export const ingestBodySchema = z.union(
  [
    z.array(z.unknown()).min(1, 'must hold at least one snapshot').max(MAX_INGEST_BATCH, `must hold at most ${MAX_INGEST_BATCH} snapshots`),
    z
      .object({
        snapshots: z.array(z.unknown()).min(1, 'must hold at least one snapshot').max(MAX_INGEST_BATCH, `must hold at most ${MAX_INGEST_BATCH} snapshots`),
      })
      .strict(),
  ],
  { message: `must be an array of advert snapshots (or {"snapshots": [...]}), at most ${MAX_INGEST_BATCH}` },
);

@Controller()
export class ListingsController {
  constructor(private readonly services: ServiceClient) {}

  // Pages of documents come from listings as JSON and go out as it came: the documents are never
  // decoded, parsed and encoded again here.
  @Get('documents/properties')
  async properties(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const criteria = parsedCriteria(query, 'properties', reply);
    const page = readPropertyPage(await this.services.requestJsonBytes(LISTINGS_SUBJECTS.listProperties, { query }));
    void reply.type(JSON_CONTENT_TYPE);
    return hydraCollectionBytes({
      context: PROPERTY_DOCUMENT_CONTEXT,
      path: '/documents/properties',
      query,
      membersJson: page.items,
      totalItems: page.totalItems,
      page: criteria.page,
      itemsPerPage: criteria.itemsPerPage,
      mappings: PROPERTY_SEARCH_MAPPINGS,
    });
  }

  @Get('documents/properties/:id/similar-properties')
  async similarProperties(@Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    if (!UUID.test(id)) throw ProblemException.invalidParameter('id', 'must be a UUID');
    const criteria = parsedCriteria(query, 'similar', reply);
    const page = readPropertyPage(await this.services.requestJsonBytes(LISTINGS_SUBJECTS.similarProperties, { id, query }));
    void reply.type(JSON_CONTENT_TYPE);
    return hydraCollectionBytes({
      context: PROPERTY_DOCUMENT_CONTEXT,
      path: `/documents/properties/${id}/similar-properties`,
      query,
      membersJson: page.items,
      totalItems: page.totalItems,
      page: criteria.page,
      itemsPerPage: criteria.itemsPerPage,
      mappings: SIMILAR_SEARCH_MAPPINGS,
    });
  }

  @Get('indicators/price_per_meter')
  async pricePerMeter(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    parsedCriteria(query, 'price_per_meter', reply);
    const statistic = await this.services.request<PricePerMeterReply>(LISTINGS_SUBJECTS.pricePerMeter, { query });
    // One statistic over every matching property: a one-member collection, as the original service answers.
    return hydraCollection({
      context: PRICE_PER_METER_CONTEXT,
      path: '/indicators/price_per_meter',
      query,
      members: [{ '@type': 'PricePerMeter', ...statistic }],
      totalItems: 1,
      page: 1,
      itemsPerPage: 1,
      mappings: PRICE_PER_METER_MAPPINGS,
    });
  }

  @Get('documents/properties/:id')
  property(@Param('id') id: string): Promise<PropertyDocument> {
    if (!UUID.test(id)) throw ProblemException.invalidParameter('id', 'must be a UUID');
    return this.services.request<PropertyDocument>(LISTINGS_SUBJECTS.getProperty, { id });
  }

  /** Batch ingestion of advert snapshots: one result per item, valid items stored, bad ones not. */
  @Post('admin/adverts')
  @AdminOnly()
  @HttpCode(200)
  async ingest(@Body() body: unknown): Promise<IngestAdvertsReply> {
    const parsed = validateBody(ingestBodySchema, body);
    const snapshots = Array.isArray(parsed) ? parsed : parsed.snapshots;
    const replies: IngestAdvertsReply[] = [];
    for (const chunk of chunkBySize(snapshots)) {
      replies.push(await this.services.request<IngestAdvertsReply>(LISTINGS_SUBJECTS.ingestAdverts, { snapshots: chunk }, INGEST_TIMEOUT_MS));
    }
    return mergeReplies(replies);
  }

  /** Drops the property read models and replays the advert event log into them. */
  @Post('admin/read-models/properties/rebuild')
  @AdminOnly()
  @HttpCode(202)
  rebuild() {
    return this.services.request<{ status: string }>(LISTINGS_SUBJECTS.rebuildProperties, {});
  }

  @Get('admin/read-models/properties/status')
  @AdminOnly()
  status() {
    return this.services.request(LISTINGS_SUBJECTS.projectionStatus, {});
  }
}
