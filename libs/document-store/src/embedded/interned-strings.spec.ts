import { internedCount, internString } from '@immo/runtime';
import type { CollectionSpec, StoredDocument } from '../document-store.port';
import { EmbeddedDocumentStore } from './embedded-document-store';
import { forgetReplacedStrings } from './skeleton';

interface Delivery extends StoredDocument {
  searchId: string;
  status: string;
}

const DELIVERIES: CollectionSpec = { name: 'interned_deliveries', indexes: [{ fields: { searchId: 1, status: 1 }, serves: 'test' }] };
const copyOf = (value: string) => value.split('').join('');

describe('interned strings of the embedded store', () => {
  it('forgets the strings a skeleton no longer holds, and keeps those its next version still holds', () => {
    const before = { _id: internString(copyOf('doc-1')), revision: 1, status: internString(copyOf('pending')), tags: [internString(copyOf('a'))] };
    const after = { _id: before._id, revision: 2, status: internString(copyOf('delivered')), tags: [before.tags[0]] };
    const size = internedCount();
    forgetReplacedStrings(before, after);
    // Only 'pending' went: the id and the tag are held by the next version.
    expect(internedCount()).toBe(size - 1);
    forgetReplacedStrings(after, null);
    expect(internedCount()).toBe(size - 4);
  });

  it('does not keep the ids and values of deleted documents, nor values documents moved away from', async () => {
    const store = new EmbeddedDocumentStore();
    const deliveries = store.collection<Delivery>(DELIVERIES);
    const baseline = internedCount();
    const ids = Array.from({ length: 500 }, (_, i) => `delivery-${i}`);
    await deliveries.bulkUpsert(ids.map((id, i) => ({ _id: id, revision: 1, searchId: `search-${i % 7}`, status: `pending-${i}` })));
    expect(internedCount()).toBeGreaterThan(baseline + 500);

    // Each document moves to a status of its own: the old values leave the pool.
    await deliveries.bulkUpsert(ids.map((id, i) => ({ _id: id, revision: 2, searchId: `search-${i % 7}`, status: `delivered-${i}` })));
    const afterUpdate = internedCount();
    // The ids, the new statuses and the searches' ids: without forgetting, the 500 old statuses too.
    expect(afterUpdate).toBeLessThanOrEqual(baseline + ids.length * 2 + 7);

    for (const id of ids) await deliveries.deleteById(id);
    // What remains was never taken from the pool by these documents alone (the searches' ids may stay).
    expect(internedCount()).toBeLessThanOrEqual(baseline + 7);
    expect(await deliveries.count({})).toBe(0);
    await store.close();
  });
});
