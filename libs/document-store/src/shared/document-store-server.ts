/**
 * Serves embedded document stores over NATS, one database per service under `dataDir`, so that
 * several processes (replicas of a service) share one store as they share MongoDB in production.
 * It is the one-machine stand-in for a shared MongoDB: same port, same query language, one
 * process holding the truth (every revision guard and unique index is checked there, so two
 * replicas' writes of one document are ordered as MongoDB would order them). It is not
 * replicated: losing this process stops the services that use it until it is back.
 */
import { join } from 'node:path';
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { DocumentCollection, DocumentStore, StoredDocument } from '../document-store.port';
import { EmbeddedDocumentStore } from '../embedded/embedded-document-store';
import {
  SHARED_STORE_PART_SUBJECTS,
  SHARED_STORE_SUBJECTS,
  encodeError,
  wire,
  type SharedStorePart,
  type SharedStoreReply,
  type SharedStoreRequest,
} from './shared-store-protocol';

const DATABASE_NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** Pieces of a large request not followed by the request itself are forgotten after this. */
const PARTS_TTL_MS = 60_000;

export interface DocumentStoreServer {
  /** Stops answering, waits for requests under way, then closes the stores. */
  stop(): Promise<void>;
}

export interface DocumentStoreServerOptions {
  nats: NatsConnection;
  /** Each database is an embedded store under `<dataDir>/<database>`. */
  dataDir: string;
  /** Told of a request that failed for a reason other than the caller's (e.g. the disk). */
  onError?: (error: unknown) => void;
}

export function serveDocumentStores(options: DocumentStoreServerOptions): DocumentStoreServer {
  const databases = new Map<string, Database>();
  const parts = new Map<string, { pieces: Uint8Array[]; expires: number }>();
  const underWay = new Set<Promise<void>>();
  const databaseOf = (subject: string): Database => {
    const name = subject.split('.')[1] ?? '';
    if (!DATABASE_NAME.test(name)) throw new Error(`"${name}" is not a database name`);
    let database = databases.get(name);
    if (!database) {
      database = new Database(new EmbeddedDocumentStore({ dataDir: join(options.dataDir, name) }));
      databases.set(name, database);
    }
    return database;
  };

  const answer = async (message: Msg): Promise<void> => {
    let reply: SharedStoreReply;
    try {
      let request = wire.unpack(message.data) as SharedStoreRequest;
      if (request.op === 'assembled') request = assemble(parts, request.partsId, request.parts);
      reply = { ok: await databaseOf(message.subject).handle(request) };
    } catch (error) {
      reply = { error: encodeError(error) };
    }
    message.respond(wire.pack(reply));
  };

  const requests = options.nats.subscribe(SHARED_STORE_SUBJECTS, {
    callback: (error, message) => {
      if (error) return options.onError?.(error);
      const work = answer(message).catch((failure: unknown) => options.onError?.(failure));
      underWay.add(work);
      void work.finally(() => underWay.delete(work));
    },
  });
  const pieces = options.nats.subscribe(SHARED_STORE_PART_SUBJECTS, {
    callback: (error, message) => {
      if (error) return options.onError?.(error);
      const part = wire.unpack(message.data) as SharedStorePart;
      const now = Date.now();
      for (const [id, entry] of parts) if (entry.expires < now) parts.delete(id);
      const entry = parts.get(part.partsId) ?? { pieces: [], expires: now + PARTS_TTL_MS };
      entry.pieces[part.index] = part.bytes;
      parts.set(part.partsId, entry);
      message.respond(wire.pack({ ok: true }));
    },
  });

  return {
    async stop() {
      await stopSubscription(requests);
      await stopSubscription(pieces);
      await Promise.allSettled(underWay);
      await Promise.all([...databases.values()].map((database) => database.close()));
    },
  };
}

function assemble(parts: Map<string, { pieces: Uint8Array[] }>, partsId: string, count: number): SharedStoreRequest {
  const entry = parts.get(partsId);
  parts.delete(partsId);
  if (!entry || entry.pieces.length !== count || entry.pieces.some((piece) => piece === undefined)) {
    throw new Error(`request ${partsId}: ${entry?.pieces.filter(Boolean).length ?? 0} of its ${count} pieces arrived`);
  }
  return wire.unpack(Buffer.concat(entry.pieces)) as SharedStoreRequest;
}

async function stopSubscription(subscription: Subscription): Promise<void> {
  subscription.unsubscribe();
  await subscription.closed;
}

/** One store and the collections its clients declared. */
class Database {
  private readonly collections = new Map<string, DocumentCollection>();

  constructor(private readonly store: DocumentStore) {}

  async handle(request: SharedStoreRequest): Promise<unknown> {
    switch (request.op) {
      case 'declare':
        this.collections.set(request.spec.name, this.store.collection(request.spec));
        return true;
      case 'find':
        return this.collection(request.collection).find(request.filter, request.options);
      case 'findById':
        return this.collection(request.collection).findById(request.id);
      case 'count':
        return this.collection(request.collection).count(request.filter);
      case 'aggregate':
        return this.collection(request.collection).aggregate(request.pipeline);
      case 'scanPage':
        return this.collection(request.collection).find(request.after === null ? {} : { _id: { $gt: request.after } }, { sort: { _id: 1 }, limit: request.limit });
      case 'upsert':
        return this.collection(request.collection).upsert(request.doc);
      case 'bulkUpsert':
        return this.collection(request.collection).bulkUpsert(request.docs);
      case 'deleteById':
        return this.collection(request.collection).deleteById(request.id);
      case 'deleteMany':
        return this.collection(request.collection).deleteMany(request.filter);
      case 'clear':
        return this.collection(request.collection).clear();
      case 'commit':
        for (const write of [...request.writes, ...(request.expect ?? [])]) this.collection(write.collection);
        return this.store.commit(request.writes, { expect: request.expect ?? [] });
      case 'flush':
        return this.store.flush();
      case 'ping':
        return this.store.isReady();
      case 'assembled':
        throw new Error('a request assembled from pieces is itself in pieces');
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private collection(name: string): DocumentCollection<StoredDocument> {
    const collection = this.collections.get(name);
    if (!collection) throw new Error(`Collection "${name}" was not opened with collection() before use`);
    return collection;
  }
}
