import type { StoredDocument } from '../document-store.port';
import { MongoDocumentStore } from './mongo-document-store';

// No server listens on this port: these tests cover what works without one.
const UNREACHABLE = 'mongodb://127.0.0.1:9/document_store_unit';

describe('MongoDocumentStore without a server', () => {
  let store: MongoDocumentStore;

  beforeEach(() => {
    store = new MongoDocumentStore({ url: UNREACHABLE, serverSelectionTimeoutMs: 200 });
  });

  afterEach(async () => {
    await store.close();
  });

  it('declares one strict:false model per collection with string ids and the spec’s indexes', () => {
    const collection = store.collection({
      name: 'listings',
      indexes: [
        { fields: { 'city.insee': 1, price: 1 }, serves: 'city by price' },
        { fields: { location: '2dsphere' }, serves: 'near a point' },
        { fields: { reference: 1 }, unique: true, serves: 'by reference' },
      ],
    });
    expect(collection.name).toBe('listings');
    const model = store.connection.models['listings'];
    expect(model).toBeDefined();
    if (!model) return;
    expect(model.collection.collectionName).toBe('listings');
    expect(model.schema.get('strict')).toBe(false);
    expect(model.schema.path('_id').instance).toBe('String');
    expect(model.schema.indexes()).toEqual([
      [{ 'city.insee': 1, price: 1 }, expect.objectContaining({ name: 'city.insee_1_price_1' })],
      [{ location: '2dsphere' }, expect.objectContaining({ name: 'location_2dsphere' })],
      [{ reference: 1 }, expect.objectContaining({ name: 'reference_1', unique: true })],
    ]);
    // Asking again returns the same collection rather than redefining the model.
    expect(store.collection({ name: 'listings', indexes: [] })).toBe(collection);
  });

  it('reports not ready and fails operations instead of hanging', async () => {
    const collection = store.collection({ name: 'listings', indexes: [] });
    expect(await store.isReady()).toBe(false);
    await expect(collection.find({})).rejects.toThrow();
  });

  it('validates documents before talking to the server', async () => {
    const collection = store.collection({ name: 'listings', indexes: [] });
    const missingRevision = { _id: 'x' } as unknown as StoredDocument;
    await expect(collection.upsert(missingRevision)).rejects.toThrow(TypeError);
  });
});
