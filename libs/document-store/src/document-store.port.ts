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
  /**
   * Its documents are plain JSON data: strings, finite numbers, booleans, null, arrays and plain
   * objects (no Dates, binary data, undefined or NaN); the writer sees to it, the store does not
   * check. The embedded store then keeps the bodies as JSON text, which V8 writes and reads faster
   * than msgpack (see `lmdb-persistence.ts`), and reads documents back as JSON carries them, in
   * memory as on disk (index values are kept as written). MongoDB stores them as BSON either way.
   * A build from before this option reads such a body as a string: going back to one means
   * rebuilding the collection's documents (for read models, from the event log).
   */
  plainJson?: boolean;
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
export type CommitOutcome = UpsertOutcome | 'deleted' | 'absent';

export interface DocumentCollection<T extends StoredDocument = StoredDocument> {
  readonly name: string;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  findById(id: string): Promise<T | null>;
  /**
   * A hint that these documents are about to be read, one by one: the embedded store faults
   * their pages in off the event loop, so the reads that follow do not stall it on the disk
   * (MongoDB's reads never do: nothing to do). Changes nothing a read answers; unknown ids are
   * fine. Resolves when the documents are ready to read, or soon anyway (it never rejects for
   * a document it could not fetch: the read will report that).
   */
  prefetch(ids: readonly string[]): Promise<void>;
  count(filter: Filter): Promise<number>;
  aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]>;
  /**
   * Every document, once, a batch at a time and in no promised order: for loading an in-memory
   * index at start without holding the whole collection at once, nor paging with a query per
   * page (each of which filters and sorts what is left). Documents written while the scan runs
   * may or may not be seen.
   */
  scan(batchSize: number): AsyncIterable<T[]>;
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

/** One write of a {@link DocumentStore.commit}: an upsert (revision-guarded) or a deletion by id. */
export type DocumentWrite =
  | { collection: string; upsert: StoredDocument }
  | { collection: string; deleteId: string };

/**
 * A precondition of a commit: the document's stored revision is this one (null: no such
 * document). A projection that several replicas run names its checkpoint this way, so that only
 * one of them commits each stretch of the log: the other's commit fails whole, and it reads what
 * the winner stored instead (see `CommitConflictError`).
 */
export interface CommitCondition {
  collection: string;
  id: string;
  revision: number | null;
}

export interface CommitOptions {
  /** Every condition holds when the commit applies, or nothing of it is written. */
  expect?: readonly CommitCondition[];
}

export interface DocumentStore {
  collection<T extends StoredDocument>(spec: CollectionSpec): DocumentCollection<T>;
  /**
   * Applies writes to collections opened with `collection()` as one transaction: after a crash
   * at any instant either all of them are stored or none. Upserts keep their revision guard (a
   * stale one is skipped, the others still apply). A projection commits its documents and its
   * checkpoint this way, so replay from the stored checkpoint always starts from a state that
   * matches it. Answers one outcome per write (`deleted` / `absent` for deletions). The store
   * takes the documents over: the caller must not change them afterwards (no defensive copy is
   * made, which matters for projections writing thousands of documents a second).
   */
  commit(writes: readonly DocumentWrite[], options?: CommitOptions): Promise<CommitOutcome[]>;
  /** Makes committed writes durable against a machine crash (they already survive a process crash). */
  flush(): Promise<void>;
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}
