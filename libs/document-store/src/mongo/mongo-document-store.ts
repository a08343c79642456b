/**
 * MongoDB adapter. Each CollectionSpec becomes a mongoose model over a `strict: false` schema
 * whose indexes come from the spec; reads and writes go through the driver collection so that
 * filters reach the server exactly as written (mongoose would cast them against the schema).
 */
import mongoose, { type Connection, type Model, Schema, type mongo } from 'mongoose';
import type {
  CollectionSpec,
  CommitOptions,
  CommitOutcome,
  DocumentCollection,
  DocumentStore,
  Filter,
  FindOptions,
  IndexSpec,
  PipelineStage,
  DocumentWrite,
  StoredDocument,
  UpsertOutcome,
} from '../document-store.port';
import { assertBatchSize, assertStoredDocument } from '../document-validation';
import { CommitConflictError, DocumentStoreClosedError, DuplicateKeyError } from '../errors';
import {
  type MongooseIndexDefinition,
  bulkWriteErrorReport,
  classifyBulkWrite,
  duplicateKeyInfo,
  guardedReplaceOne,
  isIdConflict,
  outcomeOfReplace,
  planCommit,
  splitIntoWaves,
  toFilterWithoutNear,
  toFindOptions,
  toMongooseIndexes,
  toPipeline,
  upsertedPositions,
} from './mongo-translation';

export interface MongoDocumentStoreOptions {
  /** Connection string, e.g. from `MONGO_URL`. */
  url: string;
  /** Database name when the URL does not carry one. */
  dbName?: string;
  /** How long operations wait for a reachable server before failing. Default 10 s. */
  serverSelectionTimeoutMs?: number;
}

interface MongoDoc extends StoredDocument {
  [field: string]: unknown;
}

type NativeCollection = mongo.Collection<MongoDoc>;

function buildSchema(spec: CollectionSpec, indexes: readonly MongooseIndexDefinition[]): Schema {
  const schema = new Schema(
    { _id: { type: String, required: true }, revision: { type: Number, required: true } },
    { strict: false, versionKey: false, autoIndex: false, autoCreate: false, collection: spec.name },
  );
  for (const index of indexes) schema.index(index.fields, index.options);
  return schema;
}

export class MongoDocumentStore implements DocumentStore {
  readonly connection: Connection;
  private readonly opened: Promise<Connection>;
  private readonly collections = new Map<string, MongoDocumentCollection<StoredDocument>>();
  private closed = false;

  constructor(options: MongoDocumentStoreOptions) {
    this.connection = mongoose.createConnection(options.url, {
      ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
      autoIndex: false,
      autoCreate: false,
    });
    // Errors after the first connection are retried by the driver; a listener keeps them from
    // being thrown as unhandled 'error' events.
    this.connection.on('error', () => undefined);
    this.opened = this.connection.asPromise();
    // The failure reaches callers through every operation awaiting `opened`.
    this.opened.catch(() => undefined);
  }

  collection<T extends StoredDocument>(spec: CollectionSpec): MongoDocumentCollection<T> {
    if (this.closed) throw new DocumentStoreClosedError();
    let collection = this.collections.get(spec.name);
    if (collection) {
      collection.declareIndexes(spec.indexes);
    } else {
      const indexes = toMongooseIndexes(spec.indexes);
      const model: Model<MongoDoc> =
        (this.connection.models[spec.name] as Model<MongoDoc> | undefined) ??
        this.connection.model<MongoDoc>(spec.name, buildSchema(spec, indexes), spec.name);
      collection = new MongoDocumentCollection(spec.name, model, async () => {
        if (this.closed) throw new DocumentStoreClosedError();
        await this.opened;
        const db = this.connection.db;
        if (!db) throw new Error('MongoDB connection has no database');
        return db.collection<MongoDoc>(spec.name);
      });
      this.collections.set(spec.name, collection);
    }
    // The store keeps collections untyped; the document type is the caller's declaration.
    return collection as unknown as MongoDocumentCollection<T>;
  }

  /**
   * One multi-document transaction (MongoDB must run as a replica set, as docker-compose.yml
   * does). `withTransaction` retries the whole callback on transient conflicts, so the stored
   * revisions are read again on each attempt.
   */
  async commit(writes: readonly DocumentWrite[], options: CommitOptions = {}): Promise<CommitOutcome[]> {
    if (this.closed) throw new DocumentStoreClosedError();
    for (const write of writes) if ('upsert' in write) assertStoredDocument(write.upsert, write.collection);
    const conditions = options.expect ?? [];
    if (writes.length === 0 && conditions.length === 0) return [];
    const natives = new Map<string, NativeCollection>();
    for (const write of [...writes, ...conditions]) {
      if (natives.has(write.collection)) continue;
      const collection = this.collections.get(write.collection);
      if (!collection) throw new Error(`Collection "${write.collection}" was not opened with collection() before commit`);
      natives.set(write.collection, await collection.native());
    }
    const session = this.connection.getClient().startSession();
    try {
      let outcomes: CommitOutcome[] = [];
      await session.withTransaction(async () => {
        // Read in the transaction: a writer that commits in between makes this one conflict and
        // retry (snapshot isolation), and the retry then finds the new revision.
        for (const condition of conditions) {
          const stored = await (natives.get(condition.collection) as NativeCollection).findOne({ _id: condition.id }, { projection: { revision: 1 }, session });
          const found = stored === null ? null : (stored.revision as number);
          if (found !== condition.revision) throw new CommitConflictError(condition.collection, condition.id, condition.revision, found);
        }
        const revisions = new Map<string, number>();
        for (const [name, native] of natives) {
          const ids = writes.filter((w) => w.collection === name).map((w) => ('upsert' in w ? w.upsert._id : w.deleteId));
          const stored = await native.find({ _id: { $in: ids } }, { projection: { revision: 1 }, session }).toArray();
          for (const doc of stored) revisions.set(`${name}\u0000${doc._id}`, doc.revision);
        }
        const plan = planCommit(writes, (collection, id) => revisions.get(`${collection}\u0000${id}`));
        for (const [name, native] of natives) {
          const operations: mongo.AnyBulkWriteOperation<MongoDoc>[] = [];
          for (const write of plan.planned) {
            if (write.collection !== name) continue;
            if (write.kind === 'insert') operations.push({ insertOne: { document: write.doc as MongoDoc } });
            else if (write.kind === 'replace') {
              operations.push({ replaceOne: { filter: { _id: write.doc._id, revision: write.storedRevision }, replacement: write.doc as MongoDoc } });
            } else operations.push({ deleteOne: { filter: { _id: write.id } } });
          }
          if (operations.length > 0) await native.bulkWrite(operations, { session, ordered: true });
        }
        outcomes = plan.outcomes;
      });
      return outcomes;
    } finally {
      await session.endSession();
    }
  }

  /** MongoDB is durable on acknowledged writes: nothing to do. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  async isReady(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.opened;
      const db = this.connection.db;
      if (!db) return false;
      await db.command({ ping: 1 });
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // mongoose's close() waits for a pending first connection (up to the server selection
    // timeout); closing the driver client first aborts it.
    if (this.connection.readyState !== mongoose.ConnectionStates.connected) {
      await this.connection
        .getClient()
        .close(true)
        .catch(() => undefined);
    }
    await this.connection.close();
  }

  /** Drops the whole database: for tests that run against a throwaway database. */
  async dropDatabase(): Promise<void> {
    await this.opened;
    await this.connection.dropDatabase();
  }
}

export class MongoDocumentCollection<T extends StoredDocument = StoredDocument> implements DocumentCollection<T> {
  private indexesReady: Promise<void> | null = null;
  private extraIndexes: MongooseIndexDefinition[] = [];

  constructor(
    readonly name: string,
    private readonly model: Model<MongoDoc>,
    private readonly nativeCollection: () => Promise<NativeCollection>,
  ) {}

  /** Indexes declared after the model was built are created directly on the collection. */
  declareIndexes(indexes: readonly IndexSpec[]): void {
    const known = new Set(this.model.schema.indexes().map(([, options]) => String(options['name'])));
    for (const index of toMongooseIndexes(indexes)) {
      if (known.has(index.options.name) || this.extraIndexes.some((e) => e.options.name === index.options.name)) continue;
      this.extraIndexes.push(index);
      this.indexesReady = null;
    }
  }

  /** The driver collection, with the declared indexes created. */
  native(): Promise<NativeCollection> {
    return this.collection();
  }

  private async collection(): Promise<NativeCollection> {
    const native = await this.nativeCollection();
    this.indexesReady ??= (async () => {
      await this.model.createIndexes();
      for (const index of this.extraIndexes) await native.createIndex(index.fields, index.options);
    })().catch((error: unknown) => {
      // Let the next operation try again (e.g. once conflicting documents are fixed).
      this.indexesReady = null;
      throw error;
    });
    await this.indexesReady;
    return native;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const native = await this.collection();
    const docs = await native.find(filter as mongo.Filter<MongoDoc>, toFindOptions(options)).toArray();
    return docs as unknown as T[];
  }

  async *scan(batchSize: number): AsyncIterable<T[]> {
    assertBatchSize(batchSize);
    const native = await this.collection();
    let batch: T[] = [];
    for await (const doc of native.find({}, { batchSize })) {
      batch.push(doc as unknown as T);
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  async findById(id: string): Promise<T | null> {
    const native = await this.collection();
    return (await native.findOne({ _id: id })) as T | null;
  }

  async prefetch(): Promise<void> {
    // Nothing to do: reads from MongoDB are asynchronous, they never hold the event loop.
  }

  async count(filter: Filter): Promise<number> {
    const native = await this.collection();
    return native.countDocuments(toFilterWithoutNear(filter) as mongo.Filter<MongoDoc>);
  }

  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    const native = await this.collection();
    return (await native.aggregate(toPipeline(pipeline)).toArray()) as R[];
  }

  async upsert(doc: T): Promise<UpsertOutcome> {
    assertStoredDocument(doc, this.name);
    const native = await this.collection();
    return this.guardedUpsert(native, doc, true);
  }

  private async guardedUpsert(native: NativeCollection, doc: T, retryIdConflict: boolean): Promise<UpsertOutcome> {
    const { filter, replacement } = guardedReplaceOne(doc).replaceOne;
    try {
      // The replacement keeps its `_id`; MongoDB accepts it as it equals the filter's.
      const document = replacement as unknown as mongo.WithoutId<MongoDoc>;
      return outcomeOfReplace(await native.replaceOne(filter, document, { upsert: true }));
    } catch (error) {
      const info = duplicateKeyInfo(error);
      if (!info) throw error;
      if (!isIdConflict(info)) throw new DuplicateKeyError(this.name, info.index ?? 'unknown', info.keyValue, doc._id);
      // The `_id` exists: either it is as new or newer (stale), or a concurrent writer inserted
      // it between our filter and our insert, and one more attempt settles which.
      return retryIdConflict ? this.guardedUpsert(native, doc, false) : 'stale';
    }
  }

  async bulkUpsert(docs: T[]): Promise<UpsertOutcome[]> {
    for (const doc of docs) assertStoredDocument(doc, this.name);
    if (docs.length === 0) return [];
    const native = await this.collection();
    const outcomes: UpsertOutcome[] = new Array<UpsertOutcome>(docs.length);
    let failure: DuplicateKeyError | null = null;
    for (const wave of splitIntoWaves(docs)) {
      const batch = wave.map((position) => docs[position] as T);
      const classified = await this.writeWave(native, batch);
      for (let i = 0; i < wave.length; i++) {
        const result = classified[i] as UpsertOutcome | DuplicateKeyError;
        if (result instanceof DuplicateKeyError) {
          failure ??= result;
          outcomes[wave[i] as number] = 'stale';
        } else outcomes[wave[i] as number] = result;
      }
    }
    if (failure) throw failure;
    return outcomes;
  }

  /** One unordered bulk write of documents with distinct `_id`s. */
  private async writeWave(native: NativeCollection, batch: T[]): Promise<(UpsertOutcome | DuplicateKeyError)[]> {
    const operations = batch.map((doc) => guardedReplaceOne(doc) as unknown as mongo.AnyBulkWriteOperation<MongoDoc>);
    let report;
    try {
      const result = await native.bulkWrite(operations, { ordered: false });
      report = { upserted: upsertedPositions(result.upsertedIds), writeErrors: [] };
    } catch (error) {
      report = bulkWriteErrorReport(error);
      if (!report) throw error;
    }
    const classified = classifyBulkWrite(batch.length, report);
    const results: (UpsertOutcome | DuplicateKeyError | undefined)[] = [];
    const conflicts: number[] = [];
    classified.forEach((entry, i) => {
      const doc = batch[i] as T;
      if (entry.kind === 'done') results[i] = entry.outcome;
      else if (entry.kind === 'duplicate') {
        results[i] = new DuplicateKeyError(this.name, entry.info.index ?? 'unknown', entry.info.keyValue, doc._id);
      } else if (entry.kind === 'failed') throw entry.error;
      else conflicts.push(i);
    });
    if (conflicts.length > 0) await this.settleIdConflicts(native, batch, conflicts, results);
    return results as (UpsertOutcome | DuplicateKeyError)[];
  }

  /**
   * An `_id` conflict is stale when the stored revision is as new or newer, which one query
   * checks for the whole wave (replays produce many). An older stored revision means a
   * concurrent writer inserted the `_id` first: that document is written again.
   */
  private async settleIdConflicts(
    native: NativeCollection,
    batch: readonly T[],
    positions: readonly number[],
    results: (UpsertOutcome | DuplicateKeyError | undefined)[],
  ): Promise<void> {
    const ids = positions.map((i) => (batch[i] as T)._id);
    const stored = await native.find({ _id: { $in: ids } }, { projection: { revision: 1 } }).toArray();
    const revisions = new Map(stored.map((doc) => [doc._id, doc.revision]));
    for (const i of positions) {
      const doc = batch[i] as T;
      const revision = revisions.get(doc._id);
      if (revision !== undefined && revision >= doc.revision) {
        results[i] = 'stale';
        continue;
      }
      try {
        results[i] = await this.guardedUpsert(native, doc, false);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        results[i] = error;
      }
    }
  }

  async deleteById(id: string): Promise<boolean> {
    const native = await this.collection();
    return (await native.deleteOne({ _id: id })).deletedCount === 1;
  }

  async deleteMany(filter: Filter): Promise<number> {
    const native = await this.collection();
    return (await native.deleteMany(toFilterWithoutNear(filter) as mongo.Filter<MongoDoc>)).deletedCount;
  }

  async clear(): Promise<void> {
    const native = await this.collection();
    await native.deleteMany({});
  }
}
