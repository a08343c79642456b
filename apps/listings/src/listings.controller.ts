import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload, RpcException } from '@nestjs/microservices';
import {
  LISTINGS_SUBJECTS,
  getPropertyRequestSchema,
  ingestAdvertsRequestSchema,
  listPropertiesRequestSchema,
  pricePerMeterRequestSchema,
  similarPropertiesRequestSchema,
  siteCategoriesRequestSchema,
  type PricePerMeterReply,
  rebuildPropertiesRequestSchema,
  rpcErrors,
  type IngestAdvertsReply,
  type ProjectionStatusReply,
  type PropertyDocument,
} from '@immo/contracts';
import type { MsgHdrs } from 'nats';
import { parsePropertyCriteria, type CriteriaEndpoint, type PropertyCriteria } from '@immo/property-criteria';
import { parseRpcPayload, requestIdOfHeaders, type JsonText } from '@immo/service-kit';
import { ListingsRuntime } from './listings-runtime';
import { PropertyQueries } from './queries/property-queries';

/** The same validation as the gateway's: a NATS client gets the same 400 as an HTTP one. */
function criteriaOf(query: Record<string, unknown>, endpoint: CriteriaEndpoint): PropertyCriteria {
  const parsed = parsePropertyCriteria(query, { endpoint });
  if (!parsed.ok) {
    throw new RpcException(rpcErrors.badRequest(`Invalid query parameters: ${parsed.violations.map((v) => v.propertyPath).join(', ')}`, parsed.violations));
  }
  return parsed.criteria;
}

/** The id of the request being handled: the service passes request ids explicitly (see `main.ts`). */
function requestIdOf(context: NatsContext): string | null {
  return requestIdOfHeaders(context.getHeaders() as MsgHdrs | undefined);
}

@Controller()
export class ListingsController {
  constructor(
    @Inject(ListingsRuntime) private readonly runtime: ListingsRuntime,
    @Inject(PropertyQueries) private readonly queries: PropertyQueries,
  ) {}

  @MessagePattern(LISTINGS_SUBJECTS.ingestAdverts)
  ingest(@Payload() payload: unknown, @Ctx() context: NatsContext): Promise<IngestAdvertsReply> {
    const { snapshots } = parseRpcPayload(ingestAdvertsRequestSchema, payload);
    return this.runtime.router.ingest(snapshots, requestIdOf(context));
  }

  @MessagePattern(LISTINGS_SUBJECTS.getProperty)
  async property(@Payload() payload: unknown): Promise<PropertyDocument> {
    const { id } = parseRpcPayload(getPropertyRequestSchema, payload);
    const document = await this.queries.byId(id);
    if (!document) throw new RpcException(rpcErrors.notFound(`Property ${id} was not found.`));
    return document;
  }

  /** A `ListPropertiesReply`, sent as JSON bytes (`propertyPageBytes`). */
  @MessagePattern(LISTINGS_SUBJECTS.listProperties)
  properties(@Payload() payload: unknown): Promise<JsonText> {
    const { query } = parseRpcPayload(listPropertiesRequestSchema, payload);
    return this.queries.search(criteriaOf(query, 'properties'));
  }

  /** A `ListPropertiesReply`, sent as JSON bytes (`propertyPageBytes`). */
  @MessagePattern(LISTINGS_SUBJECTS.similarProperties)
  async similarProperties(@Payload() payload: unknown): Promise<JsonText> {
    const { id, query } = parseRpcPayload(similarPropertiesRequestSchema, payload);
    const reply = await this.queries.similar(id, criteriaOf(query, 'similar'), query['order'] !== undefined);
    if (!reply) throw new RpcException(rpcErrors.notFound(`Property ${id} was not found.`));
    return reply;
  }

  @MessagePattern(LISTINGS_SUBJECTS.pricePerMeter)
  pricePerMeter(@Payload() payload: unknown): PricePerMeterReply {
    const { query } = parseRpcPayload(pricePerMeterRequestSchema, payload);
    return this.queries.pricePerMeter(criteriaOf(query, 'price_per_meter'));
  }

  @MessagePattern(LISTINGS_SUBJECTS.siteCategories)
  siteCategories(@Payload() payload: unknown): string[] {
    parseRpcPayload(siteCategoriesRequestSchema, payload ?? {});
    return this.queries.siteCategories();
  }

  @MessagePattern(LISTINGS_SUBJECTS.projectionStatus)
  async status(): Promise<ProjectionStatusReply> {
    const { runtime } = this;
    return {
      checkpoint: runtime.runner.checkpoint,
      properties: await this.queries.count(),
      adverts: runtime.directory.size,
      lastAppended: runtime.ingestion.lastAppendedPosition,
      outboxPending: await runtime.relay.pending(),
      outboxDeadLetters: runtime.relay.deadLetterCount,
      leadsIngestion: runtime.leadsIngestion,
      process: runtime.vitals.read(),
    };
  }

  @MessagePattern(LISTINGS_SUBJECTS.rebuildProperties)
  async rebuild(@Payload() payload: unknown, @Ctx() context: NatsContext): Promise<{ status: 'rebuilding' }> {
    parseRpcPayload(rebuildPropertiesRequestSchema, payload ?? {});
    this.runtime.announceRebuild(requestIdOf(context));
    return { status: 'rebuilding' };
  }
}
