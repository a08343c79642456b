import { randomUUID } from 'node:crypto';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { DocumentTextCache } from '../queries/document-text-cache';
import { aPropertyDocument, criteriaOf } from '../search/property-document.fixture';
import { PropertySearchIndex } from '../search/property-search-index';
import { searchRowOf } from '../search/search-row';
import { SearchIndexProjection } from './search-index.projection';
import { SEARCH_ROWS_COLLECTION, type SearchRowRecord } from './read-models';
import { UnitOfWork } from './unit-of-work';

describe('SearchIndexProjection', () => {
  const documents = Array.from({ length: 25 }, (_, i) => aPropertyDocument({ uuid: randomUUID(), price: 100_000 + i * 1000 }));

  it('stores each row in the batch and shows it in the index only once the batch is committed', async () => {
    const store = new EmbeddedDocumentStore();
    const projection = new SearchIndexProjection(store, new PropertySearchIndex(), new DocumentTextCache());
    const uow = new UnitOfWork(store);
    const [first] = documents;
    projection.apply({ propertyId: first!.uuid, before: null, after: first!, crawlOnly: false }, 7, uow);
    expect(projection.index.has(first!.uuid)).toBe(false);
    await uow.commit('checkpoints');
    expect(projection.index.has(first!.uuid)).toBe(true);
    expect((await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).findById(first!.uuid))?.row).toEqual(searchRowOf(first!));
  });

  it('loads every stored row back, a page at a time, into an index that answers like the first', async () => {
    const store = new EmbeddedDocumentStore();
    await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).bulkUpsert(documents.map((doc) => ({ _id: doc.uuid, revision: 1, row: searchRowOf(doc) })));
    const restarted = new SearchIndexProjection(store, new PropertySearchIndex(), new DocumentTextCache(), null, 10);
    expect(await restarted.load(null)).toEqual({ properties: 25, from: "the stored rows" });
    const cheap = criteriaOf({ budgetMax: '110000', withCoherentPrice: 'false', itemsPerPage: '30' });
    const expected = documents.filter((doc) => doc.price <= 110_000).length;
    expect(restarted.index.search(cheap).total).toBe(expected);
    expect(restarted.index.size).toBe(25);
  });

  it('drops the cached text of a changed document once the change is committed, and all of it on clear', async () => {
    const store = new EmbeddedDocumentStore();
    const texts = new DocumentTextCache();
    const projection = new SearchIndexProjection(store, new PropertySearchIndex(), texts);
    const [first, second] = documents;
    const oldFirst = new TextEncoder().encode('{"old":1}');
    const oldSecond = new TextEncoder().encode('{"old":2}');
    texts.remember(first!.uuid, oldFirst, texts.version());
    texts.remember(second!.uuid, oldSecond, texts.version());
    const uow = new UnitOfWork(store);
    projection.apply({ propertyId: first!.uuid, before: null, after: first!, crawlOnly: false }, 8, uow);
    expect(texts.get(first!.uuid)).toBe(oldFirst);
    await uow.commit('checkpoints');
    expect(texts.get(first!.uuid)).toBeUndefined();
    expect(texts.get(second!.uuid)).toBe(oldSecond);
    projection.clear();
    expect(texts.get(second!.uuid)).toBeUndefined();
  });

  it('keeps the stored and indexed row of a crawl-only change, and drops the cached text of its document once committed', async () => {
    const store = new EmbeddedDocumentStore();
    const rows = store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION);
    const texts = new DocumentTextCache();
    const projection = new SearchIndexProjection(store, new PropertySearchIndex(), texts);
    const [first] = documents;
    const indexed = new UnitOfWork(store);
    projection.apply({ propertyId: first!.uuid, before: null, after: first!, crawlOnly: false }, 7, indexed);
    await indexed.commit('checkpoints');
    const cached = new TextEncoder().encode('{"old":1}');
    texts.remember(first!.uuid, cached, texts.version());

    const recrawled = { ...first!, lastCrawledAt: '2027-02-01T00:00:00+00:00' };
    const uow = new UnitOfWork(store);
    projection.apply({ propertyId: first!.uuid, before: first!, after: recrawled, crawlOnly: true }, 9, uow);
    expect(uow.writtenTo(SEARCH_ROWS_COLLECTION.name)[Symbol.iterator]().next().done).toBe(true);
    expect(texts.get(first!.uuid)).toBe(cached);
    await uow.commit('checkpoints');
    expect(texts.get(first!.uuid)).toBeUndefined();
    expect((await rows.findById(first!.uuid))?.revision).toBe(7);
    expect(projection.index.has(first!.uuid)).toBe(true);
  });
});

