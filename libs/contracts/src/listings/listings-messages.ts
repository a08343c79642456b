import { z } from 'zod';
import type { Violation } from '../rpc/violation';
import type { PropertyDocument } from './property-document';

/** Request/reply subjects of the listings service. A breaking change adds `.v2` beside `.v1`. */
export const LISTINGS_SUBJECTS = {
  /** Crawlers inside the cluster and `POST /admin/adverts` both send batches here. */
  ingestAdverts: 'listings.cmd.ingest-adverts.v1',
  /** Between listings replicas: a replica that does not lead ingestion forwards a batch to the one that does. */
  leaderIngest: 'listings.internal.ingest-adverts.leader.v1',
  rebuildProperties: 'listings.cmd.rebuild-properties.v1',
  /** Every listings replica hears it (no queue group): the replica asked to rebuild announces it to all. */
  rebuildAnnounced: 'listings.control.rebuild-announced.v1',
  getProperty: 'listings.query.property.v1',
  listProperties: 'listings.query.properties.v1',
  similarProperties: 'listings.query.similar-properties.v1',
  pricePerMeter: 'listings.query.price-per-meter.v1',
  projectionStatus: 'listings.query.projection-status.v1',
  /** The site categories of the stored adverts, by name (`GET /site_categories`). */
  siteCategories: 'listings.query.site-categories.v1',
} as const;

export const siteCategoriesRequestSchema = z.object({}).strict();

/** Largest ingestion batch: bounds one request's work and the gateway's body size. */
export const MAX_INGEST_BATCH = 1000;

export const ingestAdvertsRequestSchema = z
  .object({
    /** Snapshots are validated one by one by the service, so one bad item rejects only itself. */
    snapshots: z.array(z.unknown()).min(1, 'must hold at least one snapshot').max(MAX_INGEST_BATCH, `must hold at most ${MAX_INGEST_BATCH} snapshots`),
  })
  .strict();

export type IngestItemResult =
  | {
      index: number;
      status: 'accepted';
      advertId: string;
      propertyId: string | null;
      /** Event types appended; empty when the snapshot changed nothing. */
      events: string[];
      warnings: string[];
    }
  | { index: number; status: 'rejected'; advertId: string | null; violations: Violation[] };

export interface IngestAdvertsReply {
  accepted: number;
  rejected: number;
  unchanged: number;
  results: IngestItemResult[];
}

export const uuidSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');

export const getPropertyRequestSchema = z.object({ id: uuidSchema }).strict();

/**
 * The query of `GET /documents/properties` as the gateway parsed it (bracket notation into nested
 * objects). The listings service validates it with the same criteria library as the gateway, so a
 * NATS client gets the same answers as an HTTP one.
 */
export const listPropertiesRequestSchema = z.object({ query: z.record(z.string(), z.unknown()) }).strict();

/** The query of `GET /documents/properties/{id}/similar-properties`, bracket-parsed, and the property. */
export const similarPropertiesRequestSchema = z.object({ id: uuidSchema, query: z.record(z.string(), z.unknown()) }).strict();

/** The query of `GET /indicators/price_per_meter`, bracket-parsed. */
export const pricePerMeterRequestSchema = z.object({ query: z.record(z.string(), z.unknown()) }).strict();

/** The spec's "Price per meter statistic". */
export interface PricePerMeterReply {
  average: number | null;
  average_min: number | null;
  average_max: number | null;
  median: number | null;
  series: Record<string, number>;
}

export interface ListPropertiesReply {
  items: PropertyDocument[];
  totalItems: number;
}

export interface ProjectionStatusReply {
  /** Global position of the last event the property projection applied (null before the first). */
  checkpoint: number | null;
  properties: number;
  adverts: number;
  /** Latest position appended by the answering instance's ingestion (null if none yet). */
  lastAppended: number | null;
  /** Integration events committed but not yet acknowledged by JetStream. */
  outboxPending: number;
  /** Integration events JetStream can never take (over its payload limit), set aside since start. */
  outboxDeadLetters: number;
  /** Whether the answering instance leads ingestion. */
  leadsIngestion: boolean;
  /** The answering process: memory, and its worst event-loop delay since it caught up at start. */
  process: {
    rssBytes: number;
    heapUsedBytes: number;
    /** V8 heap reserved, used or not. */
    heapTotalBytes: number;
    /** Memory held outside the V8 heap by buffers and native objects. */
    externalBytes: number;
    /**
     * Longest interval between two ticks of a 10 ms timer (`monitorEventLoopDelay`), and its 99th
     * percentile: an idle loop shows 10 ms, and a stall of s ms shows as s to s + 10 ms.
     */
    eventLoopDelayMaxMs: number;
    eventLoopDelayP99Ms: number;
    /** Longest garbage-collection pause since the same moment, and its kind (what a stall often is). */
    gcPauseMaxMs: number;
    gcPauseMaxKind: string | null;
  };
}

export const rebuildPropertiesRequestSchema = z.object({}).strict();
