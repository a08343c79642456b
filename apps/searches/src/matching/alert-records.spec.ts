import { EmbeddedDocumentStore } from '@immo/document-store';
import { MATCHES_COLLECTION, type MatchDoc } from '../projection/read-models';
import { AlertRecords } from './alert-records';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ALICE = uuid(1);
const BOB = uuid(2);
const ALICE_SEARCHES = [uuid(11), uuid(12)];
const BOB_SEARCH = uuid(21);

/** Bob holds most of the matches: a query of Alice's must not read them. */
function matchDocs(): MatchDoc[] {
  const docs: MatchDoc[] = [];
  const add = (accountId: string, searchId: string, property: number, minute: number) => {
    const at = new Date(Date.UTC(2026, 6, 1, 12, minute)).toISOString();
    docs.push({ _id: uuid(1000 + docs.length), revision: 1, accountId, searchId, propertyId: uuid(500 + property), createdAt: at, updatedAt: at });
  };
  for (let i = 0; i < 6; i++) add(ALICE, ALICE_SEARCHES[i % 2] as string, i, i);
  for (let i = 0; i < 200; i++) add(BOB, BOB_SEARCH, i, i);
  return docs;
}

describe('AlertRecords: an account’s matches', () => {
  const store = new EmbeddedDocumentStore();
  const records = new AlertRecords(store);
  const collection = store.collection<MatchDoc>(MATCHES_COLLECTION);
  const page = { order: 'desc' as const, page: 1, itemsPerPage: 30 };

  beforeAll(async () => {
    await store.commit(matchDocs().map((doc) => ({ collection: MATCHES_COLLECTION.name, upsert: doc })));
  });

  afterAll(async () => {
    await store.close();
  });

  it('lists the account’s matches of the given searches, newest first, reading only the account’s', async () => {
    const found = await records.matchesOfAccount(ALICE, { searchIds: ALICE_SEARCHES, ...page });
    expect(found.totalItems).toBe(6);
    expect(found.items.map((item) => item.createdAt)).toEqual(found.items.map((item) => item.createdAt).sort().reverse());
    expect(found.items.every((item) => ALICE_SEARCHES.includes(item.search.slice('/searches/'.length)))).toBe(true);
    expect(collection.queryStats().last).toEqual({ via: expect.any(String), evaluated: 6 });
  });

  it('narrows by search and by property through their indexes, oldest first when asked', async () => {
    const ofOne = await records.matchesOfAccount(ALICE, { searchIds: [ALICE_SEARCHES[0] as string], ...page, order: 'asc' });
    expect(ofOne.items.map((item) => item.propertyId)).toEqual([uuid(500), uuid(502), uuid(504)]);
    expect(collection.queryStats().last).toEqual({ via: 'searchId', evaluated: 3 });

    const ofProperty = await records.matchesOfAccount(ALICE, { searchIds: ALICE_SEARCHES, propertyIds: [uuid(503)], ...page });
    expect(ofProperty.items.map((item) => item.propertyId)).toEqual([uuid(503)]);
    // Bob's match of the same property is read, not listed: a property has a match per search at most.
    expect(collection.queryStats().last).toEqual({ via: 'propertyId', evaluated: 2 });
  });

  it('pages, and answers nothing without a live search', async () => {
    const second = await records.matchesOfAccount(ALICE, { searchIds: ALICE_SEARCHES, ...page, page: 2, itemsPerPage: 4 });
    expect(second).toMatchObject({ totalItems: 6, page: 2, itemsPerPage: 4 });
    expect(second.items).toHaveLength(2);
    expect(await records.matchesOfAccount(ALICE, { searchIds: [], ...page })).toMatchObject({ items: [], totalItems: 0 });
  });

  it('finds one match of the account only', async () => {
    const [doc] = matchDocs();
    expect(await records.matchOfAccount(ALICE, (doc as MatchDoc)._id)).toMatchObject({ searchId: ALICE_SEARCHES[0], match: { '@id': `/matches/${(doc as MatchDoc)._id}` } });
    expect(await records.matchOfAccount(BOB, (doc as MatchDoc)._id)).toBeNull();
    expect(await records.matchOfAccount(ALICE, uuid(9))).toBeNull();
  });
});
