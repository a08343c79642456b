/**
 * The document collection port. MongoDB query documents are the one query language: filters,
 * sort, skip/limit, projection, count and aggregation pipelines, including `$geoWithin`
 * (`$centerSphere`, `$polygon`, `$geometry`) and `$nearSphere` with MongoDB's semantics.
 */

export type Filter = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;
export type Projection = Record<string, 0 | 1>;
export type PipelineStage = Record<string, unknown>;

/** Index declaration shared by the Mongo schema and the embedded candidate selection. */
export interface IndexSpec {
  /** Fields in order; `2dsphere` for a GeoJSON point field. */
  fields: Record<string, 1 | -1 | '2dsphere'>;
  unique?: boolean;
  /** One line: the query this index serves. */
  serves: string;
}

export interface CollectionSpec {
  name: string;
  indexes: IndexSpec[];
}

/** Every stored document has a string `_id` and a numeric `revision` used to guard upserts. */
export interface StoredDocument {
  _id: string;
  revision: number;
}

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  projection?: Projection;
}

export type UpsertOutcome = 'inserted' | 'updated' | 'stale';

export interface DocumentCollection<T extends StoredDocument = StoredDocument> {
  readonly name: string;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  findById(id: string): Promise<T | null>;
  count(filter: Filter): Promise<number>;
  aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]>;
  /**
   * Insert or replace by `_id`. A document whose revision is lower than or equal to the stored
   * one changes nothing and answers `stale`, so replaying events is harmless.
   */
  upsert(doc: T): Promise<UpsertOutcome>;
  bulkUpsert(docs: T[]): Promise<UpsertOutcome[]>;
  deleteById(id: string): Promise<boolean>;
  deleteMany(filter: Filter): Promise<number>;
  /** Remove every document (used by read-model rebuilds). */
  clear(): Promise<void>;
}

export interface DocumentStore {
  collection<T extends StoredDocument>(spec: CollectionSpec): DocumentCollection<T>;
  /** Make what is in memory durable (no-op where the store is durable already). */
  flush(): Promise<void>;
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}
