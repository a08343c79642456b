import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import {
  LISTINGS_SUBJECTS,
  getPropertyRequestSchema,
  ingestAdvertsRequestSchema,
  listPropertiesRequestSchema,
  rebuildPropertiesRequestSchema,
  rpcErrors,
  type IngestAdvertsReply,
  type ListPropertiesReply,
  type ProjectionStatusReply,
  type PropertyDocument,
} from '@immo/contracts';
import { parseRpcPayload } from '@immo/service-kit';
import { IngestionService } from './ingestion/ingestion.service';
import { PropertyProjection } from './projection/property-projection';
import { PropertyQueries } from './queries/property-queries';

@Controller()
export class ListingsController {
  constructor(
    @Inject(IngestionService) private readonly ingestion: IngestionService,
    @Inject(PropertyProjection) private readonly projection: PropertyProjection,
    @Inject(PropertyQueries) private readonly queries: PropertyQueries,
  ) {}

  @MessagePattern(LISTINGS_SUBJECTS.ingestAdverts)
  ingest(@Payload() payload: unknown): Promise<IngestAdvertsReply> {
    const { snapshots } = parseRpcPayload(ingestAdvertsRequestSchema, payload);
    return this.ingestion.ingest(snapshots);
  }

  @MessagePattern(LISTINGS_SUBJECTS.getProperty)
  async property(@Payload() payload: unknown): Promise<PropertyDocument> {
    const { id } = parseRpcPayload(getPropertyRequestSchema, payload);
    const document = await this.queries.byId(id);
    if (!document) throw new RpcException(rpcErrors.notFound(`Property ${id} was not found.`));
    return document;
  }

  @MessagePattern(LISTINGS_SUBJECTS.listProperties)
  properties(@Payload() payload: unknown): Promise<ListPropertiesReply> {
    return this.queries.list(parseRpcPayload(listPropertiesRequestSchema, payload));
  }

  @MessagePattern(LISTINGS_SUBJECTS.projectionStatus)
  async status(): Promise<ProjectionStatusReply> {
    return { ...(await this.projection.status()), lastAppended: this.ingestion.lastAppendedPosition };
  }

  @MessagePattern(LISTINGS_SUBJECTS.rebuildProperties)
  async rebuild(@Payload() payload: unknown): Promise<{ status: 'rebuilding' }> {
    parseRpcPayload(rebuildPropertiesRequestSchema, payload ?? {});
    await this.projection.rebuild();
    return { status: 'rebuilding' };
  }
}
