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

describe('the MongoDB adapter', () => {
  it('is loaded only when chosen: the package and its embedded store work without it', async () => {
    await jest.isolateModulesAsync(async () => {
      jest.doMock('./mongo/mongo-document-store', () => {
        throw new Error('the MongoDB adapter was loaded');
      });
      const { createDocumentStore: create } = await import('./index');
      const store = create({ kind: 'embedded' });
      expect(await store.isReady()).toBe(true);
      await store.close();
      expect(() => create({ kind: 'mongo', url: 'mongodb://127.0.0.1:9/unused' })).toThrow('the MongoDB adapter was loaded');
    });
  });
});
