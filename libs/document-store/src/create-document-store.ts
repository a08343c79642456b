import type { DocumentStore } from './document-store.port';
import { EmbeddedDocumentStore } from './embedded/embedded-document-store';
import { MongoDocumentStore } from './mongo/mongo-document-store';

export type DocumentStoreConfig =
  | { kind: 'embedded'; dataDir?: string }
  | { kind: 'mongo'; url: string; dbName?: string };

export function createDocumentStore(config: DocumentStoreConfig): DocumentStore {
  switch (config.kind) {
    case 'embedded':
      return new EmbeddedDocumentStore({ dataDir: config.dataDir });
    case 'mongo':
      return new MongoDocumentStore({ url: config.url, dbName: config.dbName });
  }
}
