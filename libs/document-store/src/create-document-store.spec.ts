import { createDocumentStore } from './create-document-store';
import { EmbeddedDocumentStore } from './embedded/embedded-document-store';
import { MongoDocumentStore } from './mongo/mongo-document-store';

describe('createDocumentStore', () => {
  it('creates the embedded store', async () => {
    const store = createDocumentStore({ kind: 'embedded' });
    expect(store).toBeInstanceOf(EmbeddedDocumentStore);
    expect(await store.isReady()).toBe(true);
    await store.close();
  });

  it('creates the MongoDB store', async () => {
    const store = createDocumentStore({ kind: 'mongo', url: 'mongodb://127.0.0.1:9/unused' });
    expect(store).toBeInstanceOf(MongoDocumentStore);
    await store.close();
  });
});
