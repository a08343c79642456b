/**
 * A document store served by another process over NATS ({@link serveDocumentStores}): what
 * replicas of a service use to share their read models on one machine, the way they share
 * MongoDB in production. Each call is one request; the server's store checks revision guards and
 * unique indexes, so the replicas' writes meet there as they would in MongoDB.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, NatsError, type Msg, type NatsConnection } from 'nats';
import type {
  CollectionSpec,
  CommitOptions,
  CommitOutcome,
  DocumentCollection,
  DocumentStore,
  DocumentWrite,
  Filter,
  FindOptions,
  PipelineStage,
  StoredDocument,
  UpsertOutcome,
} from '../document-store.port';
import { assertBatchSize } from '../document-validation';
import { DocumentStoreClosedError } from '../errors';
import {
  decodeError,
  sharedStorePartSubject,
  sharedStoreSubject,
  wire,
  type SharedStoreReply,
  type SharedStoreRequest,
} from './shared-store-protocol';

export interface SharedDocumentStoreOptions {
  nats: NatsConnection;
  /** The database on the server, one per service. */
  database: string;
  /** How long one call may wait for the server. */
  timeoutMs?: number;
}

/** Room left in a message for NATS's own framing and headers. */
const FRAMING_BYTES = 4096;

export class SharedDocumentStore implements DocumentStore {
  private readonly specs = new Map<string, CollectionSpec>();
  /** Declarations sent (or being sent) to the server, by collection. */
  private readonly declarations = new Map<string, Promise<unknown>>();
  private readonly collections = new Map<string, SharedCollection>();
  private closed = false;
  private readonly timeoutMs: number;

  constructor(private readonly options: SharedDocumentStoreOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  collection<T extends StoredDocument>(spec: CollectionSpec): DocumentCollection<T> {
    this.assertOpen();
    const known = this.specs.get(spec.name);
    // Asking again with more indexes declares the new ones, as in the embedded store.
    this.specs.set(spec.name, known ? { ...spec, indexes: [...known.indexes, ...spec.indexes.filter((index) => !known.indexes.some((k) => sameIndex(k, index)))] } : spec);
    this.declarations.delete(spec.name);
    let collection = this.collections.get(spec.name);
    if (!collection) {
      collection = new SharedCollection(spec.name, (request) => this.call(request, [spec.name]));
      this.collections.set(spec.name, collection);
    }
    return collection as unknown as DocumentCollection<T>;
  }

  async commit(writes: readonly DocumentWrite[], options: CommitOptions = {}): Promise<CommitOutcome[]> {
    const expect = [...(options.expect ?? [])];
    const names = new Set([...writes, ...expect].map((write) => write.collection));
    for (const name of names) if (!this.specs.has(name)) throw new Error(`Collection "${name}" was not opened with collection() before commit`);
    return (await this.call({ op: 'commit', writes: [...writes], expect }, [...names])) as CommitOutcome[];
  }

  async flush(): Promise<void> {
    await this.call({ op: 'flush' });
  }

  async isReady(): Promise<boolean> {
    if (this.closed) return false;
    try {
      return (await this.call({ op: 'ping' })) === true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    // The connection is the service's: it closes it.
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new DocumentStoreClosedError();
  }

  /**
   * One call. The server learns the declarations of the collections it uses before the first call
   * that needs them, and again if it forgot them (it restarted): the call is then made once more.
   */
  private async call(request: SharedStoreRequest, uses: readonly string[] = []): Promise<unknown> {
    this.assertOpen();
    await Promise.all(uses.map((name) => this.declared(name)));
    try {
      return await this.send(request);
    } catch (error) {
      if (!(error instanceof Error) || !/was not opened with collection\(\)/.test(error.message)) throw error;
      for (const name of uses) this.declarations.delete(name);
      await Promise.all(uses.map((name) => this.declared(name)));
      return this.send(request);
    }
  }

  private declared(name: string): Promise<unknown> {
    let declaration = this.declarations.get(name);
    if (!declaration) {
      const spec = this.specs.get(name) as CollectionSpec;
      declaration = this.send({ op: 'declare', spec });
      // A failed declaration is tried again by the next call.
      declaration.catch(() => this.declarations.delete(name));
      this.declarations.set(name, declaration);
    }
    return declaration;
  }

  /**
   * A request. While no server listens (it starts, or restarts), it is asked again until the
   * call's time is up, as a MongoDB driver waits for its server. A reading request whose answer
   * does not come within `READ_ATTEMPT_MS` is asked again too: a NATS node lost with the request
   * or its answer on it loses them, and reading twice changes nothing. A write is asked once: its
   * answer may be the one lost after it was applied, and only its caller can tell what to do.
   */
  private async requestWhileServerStarts(subject: string, message: Uint8Array, reads: boolean): Promise<Msg> {
    const deadline = Date.now() + (reads ? this.timeoutMs : Math.min(this.timeoutMs, WRITE_TIMEOUT_MS));
    for (;;) {
      const left = Math.max(1, deadline - Date.now());
      try {
        return await this.options.nats.request(subject, message, { timeout: reads ? Math.min(left, READ_ATTEMPT_MS) : left });
      } catch (error) {
        const noServer = error instanceof NatsError && error.code === ErrorCode.NoResponders;
        const lost = reads && error instanceof NatsError && error.code === ErrorCode.Timeout;
        if (!(noServer || lost) || Date.now() + NO_SERVER_RETRY_MS >= deadline) throw error;
        if (noServer) await new Promise((resolve) => setTimeout(resolve, NO_SERVER_RETRY_MS));
      }
    }
  }

  private async send(request: SharedStoreRequest): Promise<unknown> {
    const { nats, database } = this.options;
    const body = wire.pack(request);
    const limit = nats.info?.max_payload ?? 1024 * 1024;
    let message: Uint8Array = body;
    if (body.length > limit - FRAMING_BYTES) {
      // Larger than a message may be: sent in pieces, then a request naming them.
      const partsId = randomUUID();
      const size = limit - FRAMING_BYTES;
      const count = Math.ceil(body.length / size);
      for (let index = 0; index < count; index++) {
        await nats.request(sharedStorePartSubject(database), wire.pack({ partsId, index, bytes: body.subarray(index * size, (index + 1) * size) }), { timeout: this.timeoutMs });
      }
      message = wire.pack({ op: 'assembled', partsId, parts: count } satisfies SharedStoreRequest);
    }
    const response = await this.requestWhileServerStarts(sharedStoreSubject(database), message, READS.has(request.op));
    const reply = wire.unpack(response.data) as SharedStoreReply;
    if ('error' in reply) throw decodeError(reply.error);
    return reply.ok;
  }
}

/** How long to wait before asking again a server that is not listening yet. */
const NO_SERVER_RETRY_MS = 100;
/** A reading request unanswered for this long is asked again (its request or answer was lost with a NATS node). */
const READ_ATTEMPT_MS = 2_000;
/** A write unanswered for this long fails (it may or may not have been applied). */
const WRITE_TIMEOUT_MS = 10_000;
/** The requests that change nothing, which may be asked again. */
const READS = new Set<SharedStoreRequest['op']>(['declare', 'find', 'findById', 'count', 'aggregate', 'scanPage', 'flush', 'ping']);

function sameIndex(a: CollectionSpec['indexes'][number], b: CollectionSpec['indexes'][number]): boolean {
  return JSON.stringify(a.fields) === JSON.stringify(b.fields) && a.unique === b.unique;
}

class SharedCollection implements DocumentCollection {
  constructor(
    readonly name: string,
    private readonly request: (request: SharedStoreRequest) => Promise<unknown>,
  ) {}

  async find(filter: Filter, options?: FindOptions): Promise<StoredDocument[]> {
    return (await this.request({ op: 'find', collection: this.name, filter, options })) as StoredDocument[];
  }

  async findById(id: string): Promise<StoredDocument | null> {
    return (await this.request({ op: 'findById', collection: this.name, id })) as StoredDocument | null;
  }

  /** Nothing to fault in here: the server reads its own pages. */
  prefetch(): Promise<void> {
    return Promise.resolve();
  }

  async count(filter: Filter): Promise<number> {
    return (await this.request({ op: 'count', collection: this.name, filter })) as number;
  }

  async aggregate<R = Record<string, unknown>>(pipeline: PipelineStage[]): Promise<R[]> {
    return (await this.request({ op: 'aggregate', collection: this.name, pipeline })) as R[];
  }

  /** Pages in `_id` order, each starting after the last id of the one before. */
  async *scan(batchSize: number): AsyncIterable<StoredDocument[]> {
    assertBatchSize(batchSize);
    let after: string | null = null;
    for (;;) {
      const page = (await this.request({ op: 'scanPage', collection: this.name, after, limit: batchSize })) as StoredDocument[];
      if (page.length > 0) yield page;
      if (page.length < batchSize) return;
      after = (page[page.length - 1] as StoredDocument)._id;
    }
  }

  async upsert(doc: StoredDocument): Promise<UpsertOutcome> {
    return (await this.request({ op: 'upsert', collection: this.name, doc })) as UpsertOutcome;
  }

  async bulkUpsert(docs: StoredDocument[]): Promise<UpsertOutcome[]> {
    return (await this.request({ op: 'bulkUpsert', collection: this.name, docs })) as UpsertOutcome[];
  }

  async deleteById(id: string): Promise<boolean> {
    return (await this.request({ op: 'deleteById', collection: this.name, id })) as boolean;
  }

  async deleteMany(filter: Filter): Promise<number> {
    return (await this.request({ op: 'deleteMany', collection: this.name, filter })) as number;
  }

  async clear(): Promise<void> {
    await this.request({ op: 'clear', collection: this.name });
  }
}
