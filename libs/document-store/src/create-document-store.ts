import type { DocumentStore } from './document-store.port';
import { EmbeddedDocumentStore } from './embedded/embedded-document-store';
import type { YieldToEventLoop } from './embedded/lmdb-persistence';
import { MongoDocumentStore } from './mongo/mongo-document-store';

export type DocumentStoreConfig =
  | { kind: 'embedded'; dataDir?: string; yieldToEventLoop?: YieldToEventLoop }
  | { kind: 'mongo'; url: string; dbName?: string };

export function createDocumentStore(config: DocumentStoreConfig): DocumentStore {
  switch (config.kind) {
    case 'embedded':
      return new EmbeddedDocumentStore({ dataDir: config.dataDir, yieldToEventLoop: config.yieldToEventLoop });
    case 'mongo':
      return new MongoDocumentStore({ url: config.url, dbName: config.dbName });
  }
}
