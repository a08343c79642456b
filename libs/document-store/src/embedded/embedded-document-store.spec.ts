import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CollectionSpec, Filter, StoredDocument } from '../document-store.port';
import { describeDocumentStoreContract } from '../document-store.contract';
import { DocumentStoreClosedError, DocumentStoreFailedError, DuplicateKeyError } from '../errors';
import { GeoQueryError } from '../geo/geo-query';
import { EmbeddedDocumentStore } from './embedded-document-store';
import { HashIndex } from './hash-index';
import { LmdbPersistence } from './lmdb-persistence';

describeDocumentStoreContract('embedded, in memory', () => new EmbeddedDocumentStore());
const contractDirs: string[] = [];
describeDocumentStoreContract('embedded, LMDB', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'document-store-contract-'));
  contractDirs.push(dataDir);
  return new EmbeddedDocumentStore({ dataDir });
});
// File-level: runs after the contract's own afterAll has closed the store.
afterAll(() => contractDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Ad extends StoredDocument {
  kind: 'apartment' | 'house';
  price: number;
  surface: number;
  city: { insee: string };
  tags: string[];
  agency?: string | null;
  publishedAt: Date;
}

const INDEXED: CollectionSpec = {
  name: 'ads',
  indexes: [
    { fields: { 'city.insee': 1, price: 1 }, serves: 'ads of a city by price' },
    { fields: { tags: 1 }, serves: 'ads with a tag' },
    { fields: { kind: 1 }, serves: 'ads of a kind' },
    { fields: { agency: 1 }, serves: 'ads of an agency' },
    { fields: { publishedAt: -1 }, serves: 'latest ads' },
  ],
};

function ad(i: number): Ad {
  const doc: Ad = {
    _id: `ad-${i}`,
    revision: 1,
    kind: i % 2 === 0 ? 'apartment' : 'house',
    price: i * 1000,
    surface: 20 + (i % 80),
    city: { insee: `7510${i % 10}` },
    tags: [`t${i % 5}`, `u${i % 7}`],
    publishedAt: new Date(Date.UTC(2024, i % 12, 1 + (i % 28))),
  };
  // Every third ad has no agency field at all, every fifth an explicit null.
  if (i % 3 !== 0) doc.agency = i % 5 === 0 ? null : `agency-${i % 4}`;
  return doc;
}

const ADS = Array.from({ length: 1000 }, (_, i) => ad(i));

function sortedIds(docs: readonly StoredDocument[]): string[] {
  return docs.map((d) => d._id).sort();
}

describe('embedded document store', () => {
  describe('index candidate selection', () => {
    const store = new EmbeddedDocumentStore();
    const indexed = store.collection<Ad>(INDEXED);
    const unindexed = store.collection<Ad>({ name: 'ads-unindexed', indexes: [] });

    beforeAll(async () => {
      await indexed.bulkUpsert(ADS);
      await unindexed.bulkUpsert(ADS);
    });

    beforeEach(() => indexed.resetQueryStats());

    it('evaluates only the documents an equality on an indexed nested field selects', async () => {
      const found = await indexed.find({ 'city.insee': '75103', price: { $gte: 500_000 } });
      expect(found).toHaveLength(50);
      expect(indexed.queryStats().last).toEqual({ via: 'city.insee', evaluated: 100 });
      expect(indexed.queryStats()).toMatchObject({ queries: 1, indexedQueries: 1, fullScans: 0, documentsEvaluated: 100 });
    });

    it('narrows $in and $eq, and multikey array fields', async () => {
      await indexed.find({ 'city.insee': { $in: ['75101', '75102'] } });
      expect(indexed.queryStats().last).toEqual({ via: 'city.insee', evaluated: 200 });
      await indexed.find({ 'city.insee': { $eq: '75109' } });
      expect(indexed.queryStats().last).toEqual({ via: 'city.insee', evaluated: 100 });
      const tagged = await indexed.find({ tags: 't1' });
      expect(tagged).toHaveLength(200);
      expect(indexed.queryStats().last).toEqual({ via: 'tags', evaluated: 200 });
    });

    it('picks the most selective index of an $and and unions an indexed $or', async () => {
      await indexed.find({ kind: 'house', 'city.insee': '75101' });
      expect(indexed.queryStats().last).toEqual({ via: 'city.insee', evaluated: 100 });
      await indexed.find({ $and: [{ kind: 'house' }, { tags: 'u3' }] });
      expect(indexed.queryStats().last?.via).toBe('tags');
      const either = await indexed.find({ $or: [{ 'city.insee': '75101' }, { tags: 't2' }] });
      const expected = ADS.filter((d) => d.city.insee === '75101' || d.tags.includes('t2'));
      expect(sortedIds(either)).toEqual(sortedIds(expected));
      expect(indexed.queryStats().last?.evaluated).toBe(expected.length);
    });

    it('uses the _id map, dates and null (missing) keys', async () => {
      await indexed.find({ _id: { $in: ['ad-1', 'ad-2', 'nope'] } });
      expect(indexed.queryStats().last).toEqual({ via: '_id', evaluated: 2 });
      const date = new Date(Date.UTC(2024, 0, 1));
      const onDate = await indexed.find({ publishedAt: date });
      expect(onDate.length).toBeGreaterThan(0);
      expect(indexed.queryStats().last).toEqual({ via: 'publishedAt', evaluated: onDate.length });
      const noAgency = await indexed.find({ agency: null });
      expect(noAgency).toHaveLength(ADS.filter((d) => d.agency === undefined || d.agency === null).length);
      expect(indexed.queryStats().last).toEqual({ via: 'agency', evaluated: noAgency.length });
    });

    it('falls back to a full scan when no index applies', async () => {
      await indexed.find({ surface: { $gt: 90 } });
      await indexed.find({ 'city.insee': { $regex: '^7510' } });
      await indexed.find({ $or: [{ 'city.insee': '75101' }, { surface: 30 }] });
      expect(indexed.queryStats()).toMatchObject({ queries: 3, indexedQueries: 0, fullScans: 3, documentsEvaluated: 3000 });
    });

    it('uses indexes for count, deleteMany and a leading $match', async () => {
      expect(await indexed.count({ 'city.insee': '75104' })).toBe(100);
      expect(indexed.queryStats().last).toEqual({ via: 'city.insee', evaluated: 100 });
      await indexed.aggregate([{ $match: { tags: 'u0' } }, { $group: { _id: null, n: { $sum: 1 } } }]);
      expect(indexed.queryStats().last?.via).toBe('tags');
    });

    it('answers exactly what a full scan answers', async () => {
      const filters: Filter[] = [
        { 'city.insee': '75105' },
        { 'city.insee': { $in: ['75100', '75108'] }, price: { $lt: 400_000 } },
        { tags: { $in: ['t0', 'u6'] } },
        { tags: { $all: ['t1', 'u1'] } },
        { agency: null },
        { agency: { $in: [null, 'agency-1'] } },
        { agency: 'agency-2', kind: 'apartment' },
        { kind: 'house', $or: [{ tags: 't3' }, { 'city.insee': '75107' }] },
        { publishedAt: { $in: [new Date(Date.UTC(2024, 3, 5)), new Date(Date.UTC(2024, 6, 8))] } },
        { 'city.insee': 75105 },
        { tags: { $in: [] } },
        { kind: { $eq: 'house', $ne: 'apartment' }, surface: { $gte: 50 } },
      ];
      for (const filter of filters) {
        const fromIndex = sortedIds(await indexed.find(filter));
        const fromScan = sortedIds(await unindexed.find(filter));
        expect({ filter, ids: fromIndex }).toEqual({ filter, ids: fromScan });
      }
    });

    it('builds an index declared later over the stored documents', async () => {
      const late = store.collection<Ad>({ name: 'late', indexes: [] });
      await late.bulkUpsert(ADS.slice(0, 100));
      await late.find({ surface: 30 });
      expect(late.queryStats().last?.via).toBeNull();
      store.collection<Ad>({ name: 'late', indexes: [{ fields: { surface: 1 }, serves: 'ads by surface' }] });
      const found = await late.find({ surface: 30 });
      expect(late.queryStats().last).toEqual({ via: 'surface', evaluated: found.length });
      expect(found.length).toBeGreaterThan(0);
    });

    it('keeps indexes right through updates and deletes', async () => {
      const c = store.collection<Ad>({ ...INDEXED, name: 'churn' });
      await c.bulkUpsert(ADS.slice(0, 50));
      await c.upsert({ ...ad(1), revision: 2, city: { insee: '99999' }, tags: ['moved'] });
      await c.deleteById('ad-2');
      expect(sortedIds(await c.find({ 'city.insee': '99999' }))).toEqual(['ad-1']);
      expect(await c.find({ 'city.insee': '75101' })).toHaveLength(4);
      expect(sortedIds(await c.find({ tags: 'moved' }))).toEqual(['ad-1']);
      expect(await c.find({ _id: 'ad-2' })).toEqual([]);
      await c.clear();
      expect(await c.find({ tags: 'moved' })).toEqual([]);
    });

    it('updates a document in place: it keeps its place in natural order, and no map entry is deleted for it', async () => {
      const c = store.collection<Ad>({ ...INDEXED, name: 'in-place' });
      await c.bulkUpsert(ADS.slice(0, 5));
      const naturalOrder = (await c.find({})).map((d) => d._id);
      expect([...naturalOrder].sort()).toEqual(['ad-0', 'ad-1', 'ad-2', 'ad-3', 'ad-4']);
      // Deleting and re-adding the entry would move the document to the end and leave a deleted
      // entry in V8's hash table, which is rebuilt whole once such entries fill it.
      const deleted = jest.spyOn(Map.prototype, 'delete');
      try {
        expect(await c.upsert({ ...ad(1), revision: 2, price: 1 })).toBe('updated');
        expect(deleted).not.toHaveBeenCalled();
      } finally {
        deleted.mockRestore();
      }
      expect((await c.find({})).map((d) => d._id)).toEqual(naturalOrder);
      expect((await c.find({ kind: 'house' }, { sort: { _id: 1 } })).map((d) => [d._id, d.price])).toEqual([
        ['ad-1', 1],
        ['ad-3', 3000],
      ]);
    });
  });

  describe('unique indexes', () => {
    it('treats a missing field as null, as MongoDB does', async () => {
      const c = new EmbeddedDocumentStore().collection<StoredDocument & { code?: string }>({
        name: 'codes',
        indexes: [{ fields: { code: 1 }, unique: true, serves: 'by code' }],
      });
      await c.upsert({ _id: 'a', revision: 1 });
      await expect(c.upsert({ _id: 'b', revision: 1 })).rejects.toThrow(/code_1/);
    });

    it('checks compound keys as a whole', async () => {
      const c = new EmbeddedDocumentStore().collection<StoredDocument & { agency: string; ref: string }>({
        name: 'refs',
        indexes: [{ fields: { agency: 1, ref: 1 }, unique: true, serves: 'agency reference' }],
      });
      await c.upsert({ _id: 'a', revision: 1, agency: 'x', ref: '1' });
      await c.upsert({ _id: 'b', revision: 1, agency: 'y', ref: '1' });
      const error = await c.upsert({ _id: 'c', revision: 1, agency: 'x', ref: '1' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ index: 'agency_1_ref_1', key: { agency: 'x', ref: '1' }, documentId: 'c' });
    });

    it('refuses to declare a unique index the documents already violate', async () => {
      const store = new EmbeddedDocumentStore();
      const c = store.collection<StoredDocument & { code: string }>({ name: 'dups', indexes: [] });
      await c.bulkUpsert([
        { _id: 'a', revision: 1, code: 'same' },
        { _id: 'b', revision: 1, code: 'same' },
      ]);
      expect(() => store.collection({ name: 'dups', indexes: [{ fields: { code: 1 }, unique: true, serves: 'by code' }] })).toThrow(
        DuplicateKeyError,
      );
      // The refused index is not half-registered: writes still work.
      expect(await c.upsert({ _id: 'c', revision: 1, code: 'same' })).toBe('inserted');
    });

    it('moves a unique key when a document changes it, and a refused commit puts the old key back', async () => {
      type Coded = StoredDocument & { code: string };
      const store = new EmbeddedDocumentStore();
      const c = store.collection<Coded>({ name: 'moves', indexes: [{ fields: { code: 1 }, unique: true, serves: 'by code' }] });
      await c.bulkUpsert([
        { _id: 'a', revision: 1, code: 'x' },
        { _id: 'b', revision: 1, code: 'y' },
      ]);
      await c.upsert({ _id: 'a', revision: 2, code: 'z' });
      // The old key is free, the new one taken.
      expect(await c.upsert({ _id: 'c', revision: 1, code: 'x' })).toBe('inserted');
      await expect(c.upsert({ _id: 'd', revision: 1, code: 'z' })).rejects.toThrow(DuplicateKeyError);
      // Moving `a` again, then a duplicate of `b` in the same commit: neither applies.
      await expect(
        store.commit([
          { collection: 'moves', upsert: { _id: 'a', revision: 3, code: 'w' } as Coded },
          { collection: 'moves', upsert: { _id: 'e', revision: 1, code: 'y' } as Coded },
        ]),
      ).rejects.toThrow(DuplicateKeyError);
      expect(await c.find({ _id: 'a' })).toEqual([{ _id: 'a', revision: 2, code: 'z' }]);
      expect(await c.find({ code: 'z' })).toEqual([{ _id: 'a', revision: 2, code: 'z' }]);
      await expect(c.upsert({ _id: 'f', revision: 1, code: 'z' })).rejects.toThrow(DuplicateKeyError);
      expect(await c.upsert({ _id: 'f', revision: 1, code: 'w' })).toBe('inserted');
    });

    it('rejects malformed documents before writing anything', async () => {
      const c = new EmbeddedDocumentStore().collection<StoredDocument>({ name: 'shape', indexes: [] });
      const bad = { _id: 'x' } as unknown as StoredDocument;
      await expect(c.bulkUpsert([{ _id: 'ok', revision: 1 }, bad])).rejects.toThrow(TypeError);
      expect(await c.count({})).toBe(0);
      await expect(c.upsert({ _id: '', revision: 1 })).rejects.toThrow(/_id/);
    });
  });

  describe('aggregation', () => {
    const store = new EmbeddedDocumentStore();
    const c = store.collection<StoredDocument & Record<string, unknown>>({ name: 'agg', indexes: [] });

    beforeAll(async () => {
      await c.bulkUpsert([
        { _id: '1', revision: 1, g: 'a', price: 90_000, nested: { list: [1, 2] } },
        { _id: '2', revision: 1, g: 'a', price: 100_000, nested: { list: [3] } },
        { _id: '3', revision: 1, g: 'a', price: 250_000, nested: { list: [] } },
        { _id: '4', revision: 1, g: 'b', price: 300_000, nested: { list: [4] } },
        { _id: '5', revision: 1, g: 'b', price: 100_000, nested: { list: [5] } },
        { _id: '6', revision: 1, g: 'c', label: 'no price' },
      ]);
    });

    it('computes $median numerically, the lower middle value for an even count', async () => {
      const rows = await c.aggregate([
        { $group: { _id: '$g', median: { $median: { input: '$price', method: 'approximate' } } } },
        { $sort: { _id: 1 } },
      ]);
      expect(rows).toEqual([
        { _id: 'a', median: 100_000 },
        { _id: 'b', median: 100_000 },
        { _id: 'c', median: null },
      ]);
    });

    it('computes $percentile discrete and continuous, and $median as an expression', async () => {
      const [row] = await c.aggregate([
        {
          $group: {
            _id: null,
            discrete: { $percentile: { input: '$price', p: [0.25, 0.5, 1], method: 'approximate' } },
            continuous: { $percentile: { input: '$price', p: [0.5], method: 'continuous' } },
            prices: { $push: '$price' },
          },
        },
        { $project: { discrete: 1, continuous: 1, median: { $median: { input: '$prices', method: 'approximate' } } } },
      ]);
      // Sorted prices: 90k, 100k, 100k, 250k, 300k.
      expect(row).toEqual({ _id: null, discrete: [100_000, 100_000, 300_000], continuous: [100_000], median: 100_000 });
    });

    it('answers null for $avg over no numeric value, like MongoDB', async () => {
      const rows = await c.aggregate([{ $match: { g: 'c' } }, { $group: { _id: '$g', avg: { $avg: '$price' } } }]);
      expect(rows).toEqual([{ _id: 'c', avg: null }]);
    });

    it('never changes stored documents, even with stages that write into their input', async () => {
      const before = await c.find({}, { sort: { _id: 1 } });
      const unwound = await c.aggregate([
        { $unwind: { path: '$nested.list', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } },
        { $addFields: { 'nested.extra': 1 } },
      ]);
      expect(unwound.length).toBeGreaterThan(before.length);
      const first = unwound[0] as { nested: Record<string, unknown> };
      first.nested['mutated'] = true;
      expect(await c.find({}, { sort: { _id: 1 } })).toEqual(before);
    });

    it('joins another collection of the same store with $lookup', async () => {
      const agencies = store.collection<StoredDocument & { name: string }>({ name: 'agg-agencies', indexes: [] });
      await agencies.upsert({ _id: 'a', revision: 1, name: 'Agency A' });
      const rows = await c.aggregate([
        { $match: { _id: '1' } },
        { $lookup: { from: 'agg-agencies', localField: 'g', foreignField: '_id', as: 'agency' } },
        { $project: { 'agency.name': 1 } },
      ]);
      expect(rows).toEqual([{ _id: '1', agency: [{ name: 'Agency A' }] }]);
    });

    it('refuses stages that write collections', async () => {
      await expect(c.aggregate([{ $out: 'elsewhere' }])).rejects.toThrow(/\$out/);
    });
  });

  describe('geo semantics', () => {
    const c = new EmbeddedDocumentStore().collection<StoredDocument & Record<string, unknown>>({
      name: 'places',
      indexes: [{ fields: { loc: '2dsphere' }, serves: 'places near a point' }],
    });

    beforeAll(async () => {
      await c.bulkUpsert([
        { _id: 'geojson', revision: 1, loc: { type: 'Point', coordinates: [1, 1] } },
        { _id: 'pair', revision: 1, loc: [1, 1] },
        { _id: 'object', revision: 1, loc: { lng: 1.5, lat: 1.5 } },
        { _id: 'multi', revision: 1, loc: [{ type: 'Point', coordinates: [50, 50] }, { type: 'Point', coordinates: [3, 3] }] },
        { _id: 'none', revision: 1 },
      ]);
    });

    it('matches legacy planar shapes on legacy points only', async () => {
      const box = { loc: { $geoWithin: { $box: [[0, 0], [2, 2]] } } };
      expect(sortedIds(await c.find(box))).toEqual(['object', 'pair']);
      const circle = { loc: { $geoWithin: { $center: [[0, 0], 1.5] } } };
      expect(sortedIds(await c.find(circle))).toEqual(['pair']);
    });

    it('matches a document when any point of an array matches', async () => {
      const sphere = { loc: { $geoWithin: { $centerSphere: [[3, 3], 0.001] } } };
      expect(sortedIds(await c.find(sphere))).toEqual(['multi']);
    });

    it('orders by the closest point and sorts explicitly when asked', async () => {
      const near = { loc: { $nearSphere: { $geometry: { type: 'Point', coordinates: [2.9, 2.9] } } } };
      expect((await c.find(near)).map((d) => d._id)).toEqual(['multi', 'object', 'geojson', 'pair']);
      expect((await c.find(near, { sort: { _id: -1 } })).map((d) => d._id)).toEqual(['pair', 'object', 'multi', 'geojson']);
      const geoNear = await c.aggregate([
        { $geoNear: { near: { type: 'Point', coordinates: [2.9, 2.9] }, distanceField: 'd', maxDistance: 250_000 } },
      ]);
      expect(geoNear.map((d) => d['_id'])).toEqual(['multi', 'object']);
    });

    it('accepts $near with a GeoJSON point and rejects misplaced or legacy forms', async () => {
      const near = { loc: { $near: { $geometry: { type: 'Point', coordinates: [1, 1] }, $maxDistance: 10 } } };
      expect(sortedIds(await c.find(near))).toEqual(['geojson', 'pair']);
      await expect(c.find({ loc: { $near: [1, 1] } })).rejects.toThrow(GeoQueryError);
      await expect(c.find({ $or: [{ loc: { $nearSphere: [1, 1] } }, { _id: 'x' }] })).rejects.toThrow(GeoQueryError);
      await expect(c.find({ loc: { $geoWithin: { $geometry: { type: 'Point', coordinates: [1, 1] } } } })).rejects.toThrow(
        GeoQueryError,
      );
    });
  });

  describe('copies', () => {
    it('returns copies from aggregate and findById', async () => {
      const c = new EmbeddedDocumentStore().collection<StoredDocument & { list: number[]; at: Date }>({ name: 'c', indexes: [] });
      await c.upsert({ _id: 'x', revision: 1, list: [1], at: new Date(0) });
      const [fromAggregate] = await c.aggregate<{ list: number[] }>([{ $match: {} }]);
      fromAggregate?.list.push(2);
      const byId = await c.findById('x');
      byId?.at.setTime(1000);
      expect(await c.findById('x')).toEqual({ _id: 'x', revision: 1, list: [1], at: new Date(0) });
    });
  });

  describe('sorting', () => {
    it('orders mixed types like MongoDB and uses the min/max element of arrays', async () => {
      const c = new EmbeddedDocumentStore().collection<StoredDocument & { v?: unknown }>({ name: 'mixed', indexes: [] });
      await c.bulkUpsert([
        { _id: 'date', revision: 1, v: new Date(0) },
        { _id: 'bool', revision: 1, v: true },
        { _id: 'string', revision: 1, v: 'abc' },
        { _id: 'number', revision: 1, v: 5 },
        { _id: 'missing', revision: 1 },
        { _id: 'array', revision: 1, v: [10, 1] },
        { _id: 'object', revision: 1, v: { a: 1 } },
        { _id: 'empty', revision: 1, v: [] },
      ]);
      const ascending = (await c.find({}, { sort: { v: 1 } })).map((d) => d._id);
      expect(ascending).toEqual(['empty', 'missing', 'array', 'number', 'string', 'object', 'bool', 'date']);
      const descending = (await c.find({ v: { $type: 'array' } }, { sort: { v: -1 } })).map((d) => d._id);
      expect(descending).toEqual(['array', 'empty']);
    });

    it('gives the same page with a small limit as a full sort', async () => {
      const c = new EmbeddedDocumentStore().collection<Ad>({ name: 'pages', indexes: [] });
      await c.bulkUpsert(ADS);
      const full = await c.find({}, { sort: { surface: -1, price: 1 } });
      for (const [skip, limit] of [
        [0, 10],
        [25, 7],
        [990, 20],
      ] as const) {
        const page = await c.find({}, { sort: { surface: -1, price: 1 }, skip, limit });
        expect(page.map((d) => d._id)).toEqual(full.slice(skip, skip + limit).map((d) => d._id));
      }
    });
  });

  describe('persistence', () => {
    let dataDir: string;

    beforeEach(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'document-store-'));
    });

    afterEach(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });

    const SPEC: CollectionSpec = { name: 'ads/persisted', indexes: INDEXED.indexes };

    it('says once that a commit could not reach the disk, and refuses all work from then on', async () => {
      const failures: DocumentStoreFailedError[] = [];
      const store = new EmbeddedDocumentStore({ dataDir, onFailure: (failure) => failures.push(failure) });
      const c = store.collection<StoredDocument>({ name: 'things', indexes: [] });
      await c.upsert({ _id: 'fine', revision: 1 });
      // LMDB takes keys of at most 1,978 bytes: the commit fails in the store's file, not before.
      await expect(c.upsert({ _id: 'x'.repeat(3_000), revision: 1 })).rejects.toBeInstanceOf(DocumentStoreFailedError);
      expect(failures).toHaveLength(1);
      expect(await store.isReady()).toBe(false);
      await expect(c.upsert({ _id: 'later', revision: 1 })).rejects.toBeInstanceOf(DocumentStoreFailedError);
      expect(failures).toHaveLength(1);
      await store.close();
    });

    it('answers an id it does not hold without reading storage, and reads the ones it holds, staged or stored', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const ads = store.collection<Ad>(SPEC);
      await ads.bulkUpsert(ADS.slice(0, 3));
      const reads = jest.spyOn(LmdbPersistence.prototype, 'read');
      try {
        expect(await ads.findById('ad-999')).toBeNull();
        await ads.deleteMany({ _id: 'ad-2' });
        expect(await ads.findById('ad-2')).toBeNull();
        expect(reads).not.toHaveBeenCalled();

        expect(await ads.findById('ad-1')).toEqual(ADS[1]);
        expect(reads).toHaveBeenCalledTimes(1);
        // Staged in the same commit as it is read back: visible at once.
        const written = ads.upsert({ ...ad(7), revision: 1 });
        expect(await ads.findById('ad-7')).toEqual({ ...ad(7), revision: 1 });
        await written;
      } finally {
        reads.mockRestore();
        await store.close();
      }
    });

    it('loads back what was committed, Dates included, with working indexes', async () => {
      const first = new EmbeddedDocumentStore({ dataDir });
      const docs = [
        ...ADS.slice(0, 20),
        { ...ad(20), history: [{ at: new Date('2024-03-01T10:00:00Z'), price: 1 }], note: 'é ✓ "quoted"\nline' },
      ];
      await first.collection<Ad>(SPEC).bulkUpsert(docs);
      await first.close();
      expect(readdirSync(dataDir).sort()).toEqual(['documents.mdb', 'documents.mdb-lock']);

      const second = new EmbeddedDocumentStore({ dataDir });
      const reloaded = second.collection<Ad>(SPEC);
      expect(await reloaded.find({}, { sort: { price: 1 } })).toEqual(docs);
      const withHistory = (await reloaded.findById('ad-20')) as (Ad & { history: { at: Date }[] }) | null;
      expect(withHistory?.history[0]?.at).toBeInstanceOf(Date);
      expect(withHistory?.publishedAt).toBeInstanceOf(Date);
      await reloaded.find({ 'city.insee': '75101' });
      expect(reloaded.queryStats().last).toEqual({ via: 'city.insee', evaluated: 2 });
      // The revision guard holds across restarts.
      expect(await reloaded.upsert({ ...ad(1), price: 0 })).toBe('stale');
      await second.close();
    });

    it('reads back what JSON carries from a plain-JSON collection, staged, stored and in memory alike', async () => {
      const PLAIN: CollectionSpec = { name: 'ads/plain', indexes: [{ fields: { 'city.insee': 1 }, serves: 'ads of a city' }], plainJson: true };
      const doc = { ...ad(1), at: new Date('2024-03-01T10:00:00Z'), gone: undefined, note: 'é ✓ "quoted"\nline' };
      const asJson = { ...ad(1), publishedAt: ad(1).publishedAt.toISOString(), at: '2024-03-01T10:00:00.000Z', note: doc.note };
      const memory = new EmbeddedDocumentStore();
      const first = new EmbeddedDocumentStore({ dataDir });
      const written = first.collection<Ad>(PLAIN).upsert(doc);
      // Staged, before its commit is durable.
      expect(await first.collection<Ad>(PLAIN).findById('ad-1')).toStrictEqual(asJson);
      await written;
      await first.close();
      await memory.collection<Ad>(PLAIN).upsert(doc);
      expect(await memory.collection<Ad>(PLAIN).findById('ad-1')).toStrictEqual(asJson);

      const second = new EmbeddedDocumentStore({ dataDir });
      const reloaded = second.collection<Ad>(PLAIN);
      expect(await reloaded.findById('ad-1')).toStrictEqual(asJson);
      // Indexes read skeletons, not bodies: they are as before.
      expect(await reloaded.find({ 'city.insee': ad(1).city.insee })).toStrictEqual([asJson]);
      await second.close();
    });

    it('builds its equality indexes while it opens, so the first query after a restart builds nothing', async () => {
      const first = new EmbeddedDocumentStore({ dataDir });
      await first.collection<Ad>(SPEC).bulkUpsert(ADS.slice(0, 20));
      await first.close();

      const second = new EmbeddedDocumentStore({ dataDir });
      const reloaded = second.collection<Ad>(SPEC);
      const added = jest.spyOn(HashIndex.prototype, 'add');
      try {
        const found = await reloaded.find({ 'city.insee': '75101' });
        expect(found.length).toBeGreaterThan(0);
        expect(reloaded.queryStats().last?.via).toBe('city.insee');
        expect(added).not.toHaveBeenCalled();
      } finally {
        added.mockRestore();
        await second.close();
      }
    });

    it('reopens a collection filled by commits from its stored skeletons, without reading its documents (guard: a restart reads no document)', async () => {
      const first = new EmbeddedDocumentStore({ dataDir });
      first.collection<Ad>(SPEC);
      await first.commit(ADS.slice(0, 20).map((doc) => ({ collection: SPEC.name, upsert: doc })));
      await first.close();

      const documentsRead = jest.spyOn(LmdbPersistence.prototype, 'documents');
      try {
        const second = new EmbeddedDocumentStore({ dataDir });
        const reopened = second.collection<Ad>(SPEC);
        expect(await reopened.count({ 'city.insee': '75101' })).toBe(ADS.slice(0, 20).filter((a) => a.city.insee === '75101').length);
        expect(documentsRead).not.toHaveBeenCalled();
        await second.close();
      } finally {
        documentsRead.mockRestore();
      }
    });

    it('stores each write when it resolves, deletes included', async () => {
      const first = new EmbeddedDocumentStore({ dataDir });
      const c = first.collection<Ad>(SPEC);
      await c.upsert(ad(1));
      await c.upsert(ad(2));
      await c.deleteById('ad-1');
      await first.close();
      const second = new EmbeddedDocumentStore({ dataDir });
      expect(sortedIds(await second.collection<Ad>(SPEC).find({}))).toEqual(['ad-2']);
      await second.close();
    });

    it('persists a clear', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const c = store.collection<Ad>(SPEC);
      await c.bulkUpsert(ADS.slice(0, 3));
      await c.clear();
      await store.close();
      const reopened = new EmbeddedDocumentStore({ dataDir });
      expect(await reopened.collection<Ad>(SPEC).count({})).toBe(0);
      await reopened.close();
    });

    it('keeps only skeletons on the heap and reads documents from disk', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const c = store.collection<Ad>(SPEC);
      await c.bulkUpsert(ADS.slice(0, 10));
      // A filter on indexed paths runs on skeletons; another reads each candidate's document.
      expect(await c.count({ 'city.insee': '75101' })).toBe(ADS.slice(0, 10).filter((a) => a.city.insee === '75101').length);
      expect(await c.count({ price: { $gte: 0 } })).toBe(10);
      const copy = (await c.findById('ad-3')) as Ad;
      copy.price = -1;
      expect((await c.findById('ad-3'))?.price).toBe(ad(3).price);
      await store.close();
    });

    it('rebuilds skeletons when a later start declares more indexes', async () => {
      const first = new EmbeddedDocumentStore({ dataDir });
      await first.collection<Ad>({ name: SPEC.name, indexes: [] }).bulkUpsert(ADS.slice(0, 12));
      await first.close();
      const second = new EmbeddedDocumentStore({ dataDir });
      const c = second.collection<Ad>(SPEC);
      const expected = ADS.slice(0, 12).filter((a) => a.city.insee === '75101').map((a) => a._id).sort();
      expect(sortedIds(await c.find({ 'city.insee': '75101' }))).toEqual(expected);
      expect(c.queryStats().last?.via).toBe('city.insee');
      await second.close();
    });

    it('holds many collections in one data directory', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const names = Array.from({ length: 12 }, (_, i) => `collection-${i}`);
      for (const name of names) store.collection({ name, indexes: [] });
      await store.commit(names.map((name) => ({ collection: name, upsert: { _id: 'x', revision: 1 } })));
      await store.close();
      const reopened = new EmbeddedDocumentStore({ dataDir });
      for (const name of names) expect(await reopened.collection({ name, indexes: [] }).count({})).toBe(1);
      await reopened.close();
    });

    it('commits writes to several collections together', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const ads = store.collection<Ad>(SPEC);
      store.collection<StoredDocument & { position: number }>({ name: 'marks', indexes: [] });
      await ads.upsert(ad(1));
      const outcomes = await store.commit([
        { collection: SPEC.name, upsert: ad(2) },
        { collection: SPEC.name, upsert: { ...ad(1), revision: 0 } },
        { collection: SPEC.name, deleteId: 'ad-9' },
        { collection: 'marks', upsert: { _id: 'checkpoint', revision: 1, position: 2 } as StoredDocument },
      ]);
      expect(outcomes).toEqual(['inserted', 'stale', 'absent', 'inserted']);
      await store.close();
      const reopened = new EmbeddedDocumentStore({ dataDir });
      expect(sortedIds(await reopened.collection<Ad>(SPEC).find({}))).toEqual(['ad-1', 'ad-2']);
      expect(await reopened.collection({ name: 'marks', indexes: [] }).findById('checkpoint')).toEqual({ _id: 'checkpoint', revision: 1, position: 2 });
      await reopened.close();
    });

    it('applies none of a commit when one write is refused', async () => {
      const store = new EmbeddedDocumentStore({ dataDir });
      const spec = { name: 'unique', indexes: [{ fields: { ref: 1 as const }, unique: true, serves: 'test' }] };
      const c = store.collection<StoredDocument & { ref: string }>(spec);
      await c.upsert({ _id: 'a', revision: 1, ref: 'x' });
      await expect(
        store.commit([
          { collection: 'unique', upsert: { _id: 'b', revision: 1, ref: 'y' } as StoredDocument },
          { collection: 'unique', deleteId: 'a' },
          { collection: 'unique', upsert: { _id: 'c', revision: 1, ref: 'y' } as StoredDocument },
        ]),
      ).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(sortedIds(await c.find({}))).toEqual(['a']);
      expect(await c.count({ ref: 'y' })).toBe(0);
      await store.close();
      const reopened = new EmbeddedDocumentStore({ dataDir });
      expect(sortedIds(await reopened.collection(spec).find({}))).toEqual(['a']);
      await reopened.close();
    });
  });

  describe('lifecycle', () => {
    it('refuses use after close', async () => {
      const store = new EmbeddedDocumentStore();
      const c = store.collection<StoredDocument>({ name: 'x', indexes: [] });
      expect(await store.isReady()).toBe(true);
      await store.close();
      expect(await store.isReady()).toBe(false);
      await expect(c.find({})).rejects.toBeInstanceOf(DocumentStoreClosedError);
      expect(() => store.collection({ name: 'y', indexes: [] })).toThrow(DocumentStoreClosedError);
      await store.close();
    });
  });
});
