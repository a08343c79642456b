import type { DocumentStore } from './document-store.port';
import type { DocumentStoreFailedError } from './errors';
import { EmbeddedDocumentStore } from './embedded/embedded-document-store';
import type { YieldToEventLoop } from '@immo/runtime';

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
