import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  LISTINGS_SUBJECTS,
  MAX_INGEST_BATCH,
  type IngestAdvertsReply,
  type PricePerMeterReply,
  type PropertyDocument,
} from '@immo/contracts';
import { searchVariables, type CriteriaEndpoint } from '@immo/property-criteria';
import { AdminOnly } from '../auth/public.decorator';
import { BodyLimit } from '../http/body-limits';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import { validateBody } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { chunksBySize, mergeReplies } from './ingest-chunks';
import { parsedCriteria, relayPropertyPage } from './property-pages';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ingesting a full batch appends up to a thousand commits: give it longer than a query. */
// A 1000-snapshot batch takes well under a second; a listings instance that died mid-batch should
// not keep the crawler waiting a minute before it retries.
const INGEST_TIMEOUT_MS = 15_000;

const mappingsOf = (endpoint: CriteriaEndpoint) => searchVariables(endpoint).map((variable) => ({ variable, property: null, required: false }));
const PROPERTY_SEARCH_MAPPINGS = mappingsOf('properties');
const SIMILAR_SEARCH_MAPPINGS = mappingsOf('similar');
const PRICE_PER_METER_MAPPINGS = mappingsOf('price_per_meter');
const PRICE_PER_METER_CONTEXT = '/contexts/PricePerMeter';

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

  @Get('documents/properties')
  properties(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    return relayPropertyPage(this.services, reply, {
      subject: LISTINGS_SUBJECTS.listProperties,
      payload: { query },
      path: '/documents/properties',
      query,
      criteria: parsedCriteria(query, 'properties', reply),
      mappings: PROPERTY_SEARCH_MAPPINGS,
    });
  }

  @Get('documents/properties/:id/similar-properties')
  similarProperties(@Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    if (!UUID.test(id)) throw ProblemException.invalidParameter('id', 'must be a UUID');
    return relayPropertyPage(this.services, reply, {
      subject: LISTINGS_SUBJECTS.similarProperties,
      payload: { id, query },
      path: `/documents/properties/${id}/similar-properties`,
      query,
      criteria: parsedCriteria(query, 'similar', reply),
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
  @BodyLimit('ingestion')
  @HttpCode(200)
  async ingest(@Body() body: unknown): Promise<IngestAdvertsReply> {
    const parsed = validateBody(ingestBodySchema, body);
    const snapshots = Array.isArray(parsed) ? parsed : parsed.snapshots;
    const replies: IngestAdvertsReply[] = [];
    for (const chunk of chunksBySize(snapshots)) {
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
