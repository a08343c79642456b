import type { DocumentStore } from './document-store.port';
import type { DocumentStoreFailedError } from './errors';
import { EmbeddedDocumentStore } from './embedded/embedded-document-store';
import { LmdbPersistence } from './embedded/lmdb-persistence';
import type { StoreFormatOutcome } from './embedded/store-format';
import type { YieldToEventLoop } from '@immo/contracts';

export type DocumentStoreConfig =
  | { kind: 'embedded'; dataDir?: string; yieldToEventLoop?: YieldToEventLoop; onFailure?: (failure: DocumentStoreFailedError) => void }
  | { kind: 'mongo'; url: string; dbName?: string };

export function createDocumentStore(config: DocumentStoreConfig): DocumentStore {
  switch (config.kind) {
    case 'embedded':
      return new EmbeddedDocumentStore({ dataDir: config.dataDir, yieldToEventLoop: config.yieldToEventLoop, onFailure: config.onFailure });
    case 'mongo': {
      // Loaded only when chosen: the MongoDB driver and mongoose are a second of start-up and
      // about 50 MB of heap (the BSON buffer alone is 17 MB) in a service that runs embedded.
      const { MongoDocumentStore } = require('./mongo/mongo-document-store') as typeof import('./mongo/mongo-document-store');
      return new MongoDocumentStore({ url: config.url, dbName: config.dbName });
    }
  }
}

/**
 * Readies an embedded store's data directory before `createDocumentStore` opens it: a file written
 * by an earlier version of the store is rewritten once (see embedded/store-format.ts). Services
 * call it at start; a test or tool that opens a directory only this version wrote needs not.
 */
export function prepareEmbeddedStore(dataDir: string): Promise<StoreFormatOutcome> {
  return LmdbPersistence.prepare(dataDir);
}
