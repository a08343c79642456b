/**
 * The behaviour every DocumentStore adapter must show, as one Jest suite that each adapter's
 * spec runs against its own store. Fixtures are real places around Paris, Versailles, Lyon and
 * Nantes so the geo cases read like the queries the services make.
 */
import type { CollectionSpec, DocumentCollection, DocumentStore, StoredDocument } from './document-store.port';
import { CommitConflictError, DuplicateKeyError } from './errors';
import { haversineMetres, metresToRadians } from './geo/geo-math';

interface Point {
  type: 'Point';
  coordinates: [number, number];
}

interface Listing extends StoredDocument {
  kind: 'apartment' | 'house';
  price: number;
  surface: number;
  city: { insee: string; name: string };
  tags: string[];
  rooms: { type: string; area: number }[];
  /** GeoJSON point. */
  location: Point;
  /** The same place as a legacy [lon, lat] pair. */
  coords: [number, number];
  publishedAt: Date;
}

interface Agency extends StoredDocument {
  name: string;
  siret: string;
}

const LISTINGS: CollectionSpec = {
  name: 'contract_listings',
  indexes: [
    { fields: { 'city.insee': 1, price: 1 }, serves: 'listings of a city by price' },
    { fields: { kind: 1, price: -1 }, serves: 'listings of a kind, most expensive first' },
    { fields: { tags: 1 }, serves: 'listings with a tag' },
    { fields: { publishedAt: -1 }, serves: 'latest listings' },
    { fields: { location: '2dsphere' }, serves: 'listings around a GeoJSON point' },
    { fields: { coords: '2dsphere' }, serves: 'listings around a legacy pair' },
  ],
};

const AGENCIES: CollectionSpec = {
  name: 'contract_agencies',
  indexes: [{ fields: { siret: 1 }, unique: true, serves: 'agency by SIRET' }],
};

const HOTEL_DE_VILLE: [number, number] = [2.3522, 48.8566];

function listing(
  _id: string,
  kind: Listing['kind'],
  price: number,
  surface: number,
  insee: string,
  cityName: string,
  lonLat: [number, number],
  publishedAt: string,
  tags: string[],
  rooms: Listing['rooms'],
): Listing {
  return {
    _id,
    revision: 1,
    kind,
    price,
    surface,
    city: { insee, name: cityName },
    tags,
    rooms,
    location: { type: 'Point', coordinates: lonLat },
    coords: [lonLat[0], lonLat[1]],
    publishedAt: new Date(publishedAt),
  };
}

// Distances from the Hôtel de Ville: a1 ≈ 0.43 km, a5 ≈ 0.50 km, a2 ≈ 1.16 km, a3 ≈ 4.2 km,
// h1 (Versailles) ≈ 17 km; a4, h2 (Lyon) and h3 (Nantes) are hundreds of km away.
const FIXTURES: Listing[] = [
  listing('a1', 'apartment', 450_000, 40, '75104', 'Paris', [2.3499, 48.853], '2024-01-10T09:00:00Z', ['balcony', 'elevator'], [
    { type: 'bedroom', area: 11 },
    { type: 'living', area: 20 },
  ]),
  listing('a2', 'apartment', 620_000, 55, '75101', 'Paris', [2.3376, 48.8606], '2024-01-25T09:00:00Z', ['elevator'], [
    { type: 'bedroom', area: 14 },
  ]),
  listing('a3', 'apartment', 890_000, 70, '75107', 'Paris', [2.2945, 48.8584], '2024-02-03T09:00:00Z', ['view', 'balcony'], [
    { type: 'bedroom', area: 12 },
    { type: 'bedroom', area: 9 },
  ]),
  listing('a4', 'apartment', 210_000, 35, '69381', 'Lyon', [4.832, 45.767], '2023-11-02T09:00:00Z', [], [
    { type: 'living', area: 25 },
  ]),
  listing('a5', 'apartment', 510_000, 45, '75104', 'Paris', [2.359, 48.857], '2024-01-18T09:00:00Z', ['balcony'], [
    { type: 'bedroom', area: 10 },
  ]),
  listing('h1', 'house', 980_000, 160, '78646', 'Versailles', [2.1301, 48.8049], '2024-02-20T09:00:00Z', ['garden'], [
    { type: 'bedroom', area: 16 },
  ]),
  listing('h2', 'house', 540_000, 120, '69381', 'Lyon', [4.8357, 45.764], '2023-12-15T09:00:00Z', ['garden', 'garage'], [
    { type: 'bedroom', area: 13 },
  ]),
  listing('h3', 'house', 400_000, 110, '44109', 'Nantes', [-1.5536, 47.2184], '2023-12-05T09:00:00Z', ['garden'], [
    { type: 'bedroom', area: 8 },
  ]),
];

function ids(docs: readonly StoredDocument[]): string[] {
  return docs.map((d) => d._id);
}

function sortedIds(docs: readonly StoredDocument[]): string[] {
  return ids(docs).sort();
}

/** Closed GeoJSON ring from corner coordinates. */
function ring(...corners: [number, number][]): [number, number][] {
  const first = corners[0];
  return first ? [...corners, first] : [];
}

export interface ContractOptions {
  /** Runs before the store is closed, e.g. to drop a throwaway database. */
  teardown?: (store: DocumentStore) => Promise<void>;
}

export function describeDocumentStoreContract(
  name: string,
  factory: () => DocumentStore | Promise<DocumentStore>,
  options: ContractOptions = {},
): void {
  describe(`document store contract [${name}]`, () => {
    let store: DocumentStore;

    beforeAll(async () => {
      store = await factory();
    });

    afterAll(async () => {
      if (!store) return;
      await options.teardown?.(store);
      await store.close();
    });

    async function emptyCollection<T extends StoredDocument>(spec: CollectionSpec): Promise<DocumentCollection<T>> {
      const collection = store.collection<T>(spec);
      await collection.clear();
      return collection;
    }

    async function listings(): Promise<DocumentCollection<Listing>> {
      const collection = await emptyCollection<Listing>(LISTINGS);
      await collection.bulkUpsert(FIXTURES);
      return collection;
    }

    it('is ready once opened', async () => {
      expect(await store.isReady()).toBe(true);
    });

    describe('find', () => {
      it('filters, sorts, skips, limits and projects', async () => {
        const c = await listings();
        const page = await c.find(
          { kind: 'apartment', price: { $lte: 700_000 } },
          { sort: { price: -1 }, skip: 1, limit: 2, projection: { kind: 1, price: 1 } },
        );
        expect(page).toEqual([
          { _id: 'a5', kind: 'apartment', price: 510_000 },
          { _id: 'a1', kind: 'apartment', price: 450_000 },
        ]);
      });

      it('sorts on several keys including a nested one', async () => {
        const c = await listings();
        const all = await c.find({}, { sort: { 'city.insee': 1, price: -1 } });
        expect(ids(all)).toEqual(['h3', 'h2', 'a4', 'a2', 'a5', 'a1', 'a3', 'h1']);
      });

      it('projects nested fields and excludes _id on request', async () => {
        const c = await listings();
        const names = await c.find({ _id: { $in: ['a4', 'h1'] } }, { sort: { _id: 1 }, projection: { _id: 0, 'city.name': 1 } });
        expect(names).toEqual([{ city: { name: 'Lyon' } }, { city: { name: 'Versailles' } }]);
      });

      it('finds by id and answers null for an unknown id', async () => {
        const c = await listings();
        const doc = await c.findById('a3');
        expect(doc).toMatchObject({ _id: 'a3', price: 890_000, city: { insee: '75107' } });
        expect(doc?.publishedAt).toBeInstanceOf(Date);
        expect(doc?.publishedAt.toISOString()).toBe('2024-02-03T09:00:00.000Z');
        expect(await c.findById('nope')).toBeNull();
      });

      it('prefetches known, unknown and no ids without changing what reads answer', async () => {
        const c = await listings();
        const before = await Promise.all(['a3', 'h1'].map((id) => c.findById(id)));
        await c.prefetch([]);
        await c.prefetch(['a3', 'nope', 'h1', 'a3']);
        expect(await Promise.all(['a3', 'h1'].map((id) => c.findById(id)))).toEqual(before);
        expect(await c.findById('nope')).toBeNull();
        // A write right before the prefetch is what the next read sees.
        await c.upsert({ ...(before[0] as Listing), revision: 99, price: 1 });
        await c.prefetch(['a3']);
        expect(await c.findById('a3')).toMatchObject({ revision: 99, price: 1 });
      });

      it('queries nested fields and arrays ($in, $all, $size, $elemMatch)', async () => {
        const c = await listings();
        expect(sortedIds(await c.find({ 'city.insee': { $in: ['75101', '75107'] } }))).toEqual(['a2', 'a3']);
        expect(sortedIds(await c.find({ 'city.insee': '75104', price: { $gt: 460_000 } }))).toEqual(['a5']);
        expect(sortedIds(await c.find({ tags: 'balcony' }))).toEqual(['a1', 'a3', 'a5']);
        expect(sortedIds(await c.find({ tags: { $in: ['garden', 'view'] } }))).toEqual(['a3', 'h1', 'h2', 'h3']);
        expect(sortedIds(await c.find({ tags: { $all: ['balcony', 'elevator'] } }))).toEqual(['a1']);
        expect(sortedIds(await c.find({ tags: { $size: 0 } }))).toEqual(['a4']);
        expect(sortedIds(await c.find({ rooms: { $elemMatch: { type: 'bedroom', area: { $gte: 12 } } } }))).toEqual([
          'a2',
          'a3',
          'h1',
          'h2',
        ]);
        expect(sortedIds(await c.find({ 'rooms.type': 'living' }))).toEqual(['a1', 'a4']);
        expect(sortedIds(await c.find({ $or: [{ 'city.insee': '44109' }, { price: { $gte: 900_000 } }] }))).toEqual([
          'h1',
          'h3',
        ]);
      });

      it('queries dates', async () => {
        const c = await listings();
        const recent = await c.find({ publishedAt: { $gte: new Date('2024-02-01T00:00:00Z') } }, { sort: { publishedAt: -1 } });
        expect(ids(recent)).toEqual(['h1', 'a3']);
      });
    });

    describe('scan', () => {
      it('hands out every document once, in batches of at most the given size', async () => {
        const c = await listings();
        const batches: Listing[][] = [];
        for await (const batch of c.scan(3)) batches.push(batch);
        expect(batches.every((batch) => batch.length >= 1 && batch.length <= 3)).toBe(true);
        const scanned = batches.flat();
        expect(sortedIds(scanned)).toEqual(sortedIds(FIXTURES));
        expect(scanned.find((doc) => doc._id === 'a3')).toEqual(await c.findById('a3'));
      });

      it('scans an empty collection as no batch, and refuses a batch size that would never advance', async () => {
        const c = await emptyCollection<Listing>(LISTINGS);
        const batches: Listing[][] = [];
        for await (const batch of c.scan(10)) batches.push(batch);
        expect(batches).toEqual([]);
        await expect(async () => {
          for await (const batch of c.scan(0)) batches.push(batch);
        }).rejects.toThrow(/batchSize/);
      });
    });

    it('counts matching documents', async () => {
      const c = await listings();
      expect(await c.count({})).toBe(8);
      expect(await c.count({ kind: 'house' })).toBe(3);
      expect(await c.count({ 'city.insee': '75104' })).toBe(2);
      expect(await c.count({ surface: { $gt: 1000 } })).toBe(0);
    });

    describe('aggregate', () => {
      it('groups with $avg, $min, $max, $median and $sum', async () => {
        const c = await listings();
        const stats = await c.aggregate([
          {
            $group: {
              _id: '$kind',
              avg: { $avg: '$price' },
              min: { $min: '$price' },
              max: { $max: '$price' },
              median: { $median: { input: '$price', method: 'approximate' } },
              count: { $sum: 1 },
            },
          },
          { $sort: { _id: 1 } },
        ]);
        expect(stats).toEqual([
          { _id: 'apartment', avg: 536_000, min: 210_000, max: 890_000, median: 510_000, count: 5 },
          { _id: 'house', avg: 640_000, min: 400_000, max: 980_000, median: 540_000, count: 3 },
        ]);
      });

      it('groups by month with $dateToString %Y-%m', async () => {
        const c = await listings();
        const months = await c.aggregate([
          {
            $group: {
              _id: { $dateToString: { format: '%Y-%m', date: '$publishedAt' } },
              count: { $sum: 1 },
              median: { $median: { input: '$price', method: 'approximate' } },
            },
          },
          { $sort: { _id: 1 } },
        ]);
        expect(months).toEqual([
          { _id: '2023-11', count: 1, median: 210_000 },
          { _id: '2023-12', count: 2, median: expect.any(Number) as unknown },
          { _id: '2024-01', count: 3, median: 510_000 },
          { _id: '2024-02', count: 2, median: expect.any(Number) as unknown },
        ]);
      });

      it('groups by year with $year after a $match', async () => {
        const c = await listings();
        const years = await c.aggregate([
          { $match: { kind: 'apartment' } },
          { $group: { _id: { $year: '$publishedAt' }, count: { $sum: 1 }, max: { $max: '$price' } } },
          { $sort: { _id: 1 } },
        ]);
        expect(years).toEqual([
          { _id: 2023, count: 1, max: 210_000 },
          { _id: 2024, count: 4, max: 890_000 },
        ]);
      });

      it('runs $geoNear with distances in metres', async () => {
        const c = await listings();
        const near = await c.aggregate<{ _id: string; distance: number }>([
          {
            $geoNear: {
              near: { type: 'Point', coordinates: HOTEL_DE_VILLE },
              key: 'location',
              distanceField: 'distance',
              maxDistance: 2000,
              spherical: true,
            },
          },
          { $project: { distance: 1 } },
        ]);
        expect(near.map((row) => row._id)).toEqual(['a1', 'a5', 'a2']);
        for (const row of near) {
          const fixture = FIXTURES.find((f) => f._id === row._id);
          expect(fixture).toBeDefined();
          if (fixture) expect(Math.abs(row.distance - haversineMetres(HOTEL_DE_VILLE, fixture.coords))).toBeLessThan(5);
        }
      });
    });

    describe('upsert', () => {
      it('inserts, updates a newer revision and ignores older or equal ones', async () => {
        const c = await emptyCollection<Agency>(AGENCIES);
        expect(await c.upsert({ _id: 'ag1', revision: 1, name: 'First', siret: '111' })).toBe('inserted');
        expect(await c.upsert({ _id: 'ag1', revision: 3, name: 'Third', siret: '111' })).toBe('updated');
        expect(await c.upsert({ _id: 'ag1', revision: 2, name: 'Second', siret: '111' })).toBe('stale');
        expect(await c.upsert({ _id: 'ag1', revision: 3, name: 'Replayed', siret: '111' })).toBe('stale');
        expect(await c.findById('ag1')).toEqual({ _id: 'ag1', revision: 3, name: 'Third', siret: '111' });
      });

      it('replaces the whole document', async () => {
        const c = await emptyCollection<StoredDocument & Record<string, unknown>>({ name: 'contract_replace', indexes: [] });
        await c.upsert({ _id: 'x', revision: 1, a: 1, b: 2 });
        await c.upsert({ _id: 'x', revision: 2, a: 10 });
        expect(await c.findById('x')).toEqual({ _id: 'x', revision: 2, a: 10 });
      });

      it('applies many documents in order with bulkUpsert', async () => {
        const c = await emptyCollection<Agency>(AGENCIES);
        await c.upsert({ _id: 'old', revision: 5, name: 'Kept', siret: '500' });
        const outcomes = await c.bulkUpsert([
          { _id: 'n1', revision: 1, name: 'N1 v1', siret: '001' },
          { _id: 'n2', revision: 1, name: 'N2 v1', siret: '002' },
          { _id: 'n1', revision: 2, name: 'N1 v2', siret: '001' },
          { _id: 'n2', revision: 1, name: 'N2 replay', siret: '002' },
          { _id: 'old', revision: 4, name: 'Older', siret: '500' },
        ]);
        expect(outcomes).toEqual(['inserted', 'inserted', 'updated', 'stale', 'stale']);
        expect(await c.findById('n1')).toMatchObject({ revision: 2, name: 'N1 v2' });
        expect(await c.findById('n2')).toMatchObject({ revision: 1, name: 'N2 v1' });
        expect(await c.findById('old')).toMatchObject({ revision: 5, name: 'Kept' });
        expect(await c.bulkUpsert([])).toEqual([]);
      });

      it('refuses a duplicate key on a unique index', async () => {
        const c = await emptyCollection<Agency>(AGENCIES);
        await c.upsert({ _id: 'ag1', revision: 1, name: 'One', siret: '123' });
        await expect(c.upsert({ _id: 'ag2', revision: 1, name: 'Two', siret: '123' })).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findById('ag2')).toBeNull();
        // Rewriting the holder of the key is no conflict.
        expect(await c.upsert({ _id: 'ag1', revision: 2, name: 'One renamed', siret: '123' })).toBe('updated');
        // In a bulk, the other documents are still applied.
        await expect(
          c.bulkUpsert([
            { _id: 'ag3', revision: 1, name: 'Three', siret: '333' },
            { _id: 'ag4', revision: 1, name: 'Four', siret: '123' },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await c.findById('ag3')).toMatchObject({ siret: '333' });
        expect(await c.findById('ag4')).toBeNull();
      });

      it('keeps stored documents apart from the caller’s objects', async () => {
        const c = await listings();
        const fetched = await c.find({ _id: 'a1' });
        const first = fetched[0];
        expect(first).toBeDefined();
        if (first) {
          first.price = 1;
          first.city.name = 'changed';
          first.tags.push('changed');
        }
        const written: Listing = { ...(FIXTURES[0] as Listing), _id: 'copy', city: { insee: '75104', name: 'Paris' } };
        await c.upsert(written);
        written.city.name = 'changed after write';
        expect(await c.findById('a1')).toMatchObject({ price: 450_000, city: { name: 'Paris' }, tags: ['balcony', 'elevator'] });
        expect(await c.findById('copy')).toMatchObject({ city: { name: 'Paris' } });
      });
    });

    describe('commit', () => {
      const MARKS: CollectionSpec = { name: 'contract_marks', indexes: [] };
      type Mark = StoredDocument & { position: number };

      it('writes to several collections at once, keeping the revision guard', async () => {
        const items = await listings();
        const marks = await emptyCollection<Mark>(MARKS);
        const first = FIXTURES[0] as Listing;
        const outcomes = await store.commit([
          { collection: LISTINGS.name, upsert: { ...first, revision: first.revision + 1, price: 1 } as Listing },
          { collection: LISTINGS.name, upsert: { ...first, revision: first.revision, price: 2 } as Listing },
          { collection: LISTINGS.name, deleteId: 'missing' },
          { collection: LISTINGS.name, deleteId: (FIXTURES[1] as Listing)._id },
          { collection: MARKS.name, upsert: { _id: 'checkpoint', revision: 7, position: 7 } as Mark },
        ]);
        expect(outcomes).toEqual(['updated', 'stale', 'absent', 'deleted', 'inserted']);
        expect((await items.findById(first._id))?.price).toBe(1);
        expect(await items.findById((FIXTURES[1] as Listing)._id)).toBeNull();
        expect(await marks.findById('checkpoint')).toEqual({ _id: 'checkpoint', revision: 7, position: 7 });
        expect(await store.commit([])).toEqual([]);
      });

      it('lets later writes of a commit see the earlier ones', async () => {
        const marks = await emptyCollection<Mark>(MARKS);
        const outcomes = await store.commit([
          { collection: MARKS.name, upsert: { _id: 'm', revision: 1, position: 1 } as Mark },
          { collection: MARKS.name, upsert: { _id: 'm', revision: 1, position: 9 } as Mark },
          { collection: MARKS.name, deleteId: 'm' },
          { collection: MARKS.name, upsert: { _id: 'm', revision: 1, position: 3 } as Mark },
        ]);
        expect(outcomes).toEqual(['inserted', 'stale', 'deleted', 'inserted']);
        expect(await marks.findById('m')).toEqual({ _id: 'm', revision: 1, position: 3 });
      });

      it('commits only while its conditions hold, and writes nothing of a refused commit', async () => {
        const marks = await emptyCollection<Mark>(MARKS);
        const checkpoint = (position: number) => ({ collection: MARKS.name, upsert: { _id: 'checkpoint', revision: position, position } as Mark });
        const other = { collection: MARKS.name, upsert: { _id: 'other', revision: 1, position: 1 } as Mark };
        // Absent, as expected: the first writer commits.
        expect(await store.commit([checkpoint(10)], { expect: [{ collection: MARKS.name, id: 'checkpoint', revision: null }] })).toEqual(['inserted']);
        // A second writer that read the same (absent) checkpoint lost its turn.
        const refused = store.commit([other, checkpoint(10)], { expect: [{ collection: MARKS.name, id: 'checkpoint', revision: null }] });
        await expect(refused).rejects.toBeInstanceOf(CommitConflictError);
        await expect(refused).rejects.toMatchObject({ collection: MARKS.name, documentId: 'checkpoint', expected: null, found: 10 });
        expect(await marks.findById('other')).toBeNull();
        // Reading what is stored, it goes on from there.
        expect(await store.commit([other, checkpoint(20)], { expect: [{ collection: MARKS.name, id: 'checkpoint', revision: 10 }] })).toEqual(['inserted', 'updated']);
        await expect(store.commit([checkpoint(30)], { expect: [{ collection: MARKS.name, id: 'checkpoint', revision: 10 }] })).rejects.toBeInstanceOf(CommitConflictError);
        expect(await marks.findById('checkpoint')).toEqual({ _id: 'checkpoint', revision: 20, position: 20 });
      });

      it('rejects a malformed document before writing anything', async () => {
        const marks = await emptyCollection<Mark>(MARKS);
        await expect(
          store.commit([
            { collection: MARKS.name, upsert: { _id: 'ok', revision: 1, position: 1 } as Mark },
            { collection: MARKS.name, upsert: { _id: 'bad', revision: 'one' } as unknown as Mark },
          ]),
        ).rejects.toThrow();
        expect(await marks.count({})).toBe(0);
      });
    });

    describe('delete', () => {
      it('deletes by id, by filter, and clears', async () => {
        const c = await listings();
        expect(await c.deleteById('a1')).toBe(true);
        expect(await c.deleteById('a1')).toBe(false);
        expect(await c.findById('a1')).toBeNull();
        expect(await c.deleteMany({ kind: 'house' })).toBe(3);
        expect(await c.deleteMany({ kind: 'house' })).toBe(0);
        expect(sortedIds(await c.find({}))).toEqual(['a2', 'a3', 'a4', 'a5']);
        await c.clear();
        expect(await c.count({})).toBe(0);
        // A cleared collection accepts the same documents again.
        expect(await c.upsert(FIXTURES[0] as Listing)).toBe('inserted');
      });
    });

    describe('geo', () => {
      it('$geoWithin $centerSphere: within 2 km of the Hôtel de Ville', async () => {
        const c = await listings();
        const filter = { location: { $geoWithin: { $centerSphere: [HOTEL_DE_VILLE, metresToRadians(2000)] } } };
        expect(sortedIds(await c.find(filter))).toEqual(['a1', 'a2', 'a5']);
        expect(await c.count(filter)).toBe(3);
        // Notre-Dame is in, Versailles is out.
        expect(ids(await c.find({ ...filter, _id: { $in: ['a1', 'h1'] } }))).toEqual(['a1']);
        // Legacy pairs answer the same.
        const legacy = { coords: { $geoWithin: { $centerSphere: [HOTEL_DE_VILLE, metresToRadians(2000)] } } };
        expect(sortedIds(await c.find(legacy))).toEqual(['a1', 'a2', 'a5']);
      });

      it('$geoWithin $polygon and $box on legacy pairs (planar)', async () => {
        const c = await listings();
        const polygon = [
          [2.33, 48.85],
          [2.37, 48.85],
          [2.37, 48.865],
          [2.33, 48.865],
        ];
        expect(sortedIds(await c.find({ coords: { $geoWithin: { $polygon: polygon } } }))).toEqual(['a1', 'a2', 'a5']);
        const box = [
          [2.28, 48.85],
          [2.3, 48.87],
        ];
        expect(ids(await c.find({ coords: { $geoWithin: { $box: box } } }))).toEqual(['a3']);
      });

      it('$geoWithin $geometry Polygon, with and without a hole', async () => {
        const c = await listings();
        const outer = ring([2.33, 48.85], [2.37, 48.85], [2.37, 48.865], [2.33, 48.865]);
        // MongoDB refuses holes that touch the exterior ring, so this one stays clear of it.
        const aroundNotreDame = ring([2.345, 48.851], [2.355, 48.851], [2.355, 48.856], [2.345, 48.856]);
        const plain = { location: { $geoWithin: { $geometry: { type: 'Polygon', coordinates: [outer] } } } };
        expect(sortedIds(await c.find(plain))).toEqual(['a1', 'a2', 'a5']);
        const holed = { location: { $geoWithin: { $geometry: { type: 'Polygon', coordinates: [outer, aroundNotreDame] } } } };
        expect(sortedIds(await c.find(holed))).toEqual(['a2', 'a5']);
        expect(await c.count(holed)).toBe(2);
      });

      it('$geoWithin $geometry MultiPolygon, with a hole', async () => {
        const c = await listings();
        const versailles = [ring([2.1, 48.79], [2.16, 48.79], [2.16, 48.82], [2.1, 48.82])];
        const lyon = ring([4.8, 45.74], [4.86, 45.74], [4.86, 45.78], [4.8, 45.78]);
        const lyonHole = ring([4.83, 45.765], [4.834, 45.765], [4.834, 45.769], [4.83, 45.769]);
        const multi = (lyonRings: [number, number][][]): Record<string, unknown> => ({
          location: { $geoWithin: { $geometry: { type: 'MultiPolygon', coordinates: [versailles, lyonRings] } } },
        });
        expect(sortedIds(await c.find(multi([lyon])))).toEqual(['a4', 'h1', 'h2']);
        expect(sortedIds(await c.find(multi([lyon, lyonHole])))).toEqual(['h1', 'h2']);
      });

      it('$nearSphere with $maxDistance in metres orders nearest first', async () => {
        const c = await listings();
        const near = (max: number, min?: number): Record<string, unknown> => ({
          location: {
            $nearSphere: {
              $geometry: { type: 'Point', coordinates: HOTEL_DE_VILLE },
              $maxDistance: max,
              ...(min === undefined ? {} : { $minDistance: min }),
            },
          },
        });
        expect(ids(await c.find(near(5000)))).toEqual(['a1', 'a5', 'a2', 'a3']);
        expect(ids(await c.find(near(5000, 1000)))).toEqual(['a2', 'a3']);
        expect(ids(await c.find(near(5000), { limit: 2 }))).toEqual(['a1', 'a5']);
        expect(ids(await c.find({ ...near(50_000), kind: 'house' }))).toEqual(['h1']);
        expect(await c.count(near(2000))).toBe(3);
        expect(await c.count(near(5000, 1000))).toBe(2);
      });

      it('$nearSphere on legacy pairs takes radians', async () => {
        const c = await listings();
        const found = await c.find({ coords: { $nearSphere: HOTEL_DE_VILLE, $maxDistance: metresToRadians(2000) } });
        expect(ids(found)).toEqual(['a1', 'a5', 'a2']);
      });

      it('deletes what a $nearSphere filter matches', async () => {
        const c = await listings();
        const filter = {
          location: { $nearSphere: { $geometry: { type: 'Point', coordinates: HOTEL_DE_VILLE }, $maxDistance: 2000 } },
        };
        expect(await c.deleteMany(filter)).toBe(3);
        expect(await c.count({})).toBe(5);
      });
    });
  });
}
