import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busyFor } from '@immo/testing';
import { open } from 'lmdb';
import { Packr } from 'msgpackr';
import type { StoredDocument } from '../document-store.port';
import { LMDB_FILE_NAME, LmdbPersistence, type PersistOp } from './lmdb-persistence';
import { markStoreFormat } from './store-format';

const codec = new Packr({ useRecords: false, moreTypes: false });

/** A document the size of a listing's, with text that repeats as real descriptions do. */
function listingLike(i: number): { _id: string; revision: number; description: string; pictures: string[] } {
  return {
    _id: `property-${i}`,
    revision: 1,
    description: `Appartement ${i} lumineux, proche des commerces et des transports, au calme. `.repeat(40),
    pictures: Array.from({ length: 8 }, (_, p) => `https://images.example.fr/listing/${i}/${p}.jpg`),
  };
}

/** A small document (about 600 bytes encoded) whose field names and most values its neighbours repeat, as a search row's do. */
function rowLike(i: number): StoredDocument & Record<string, unknown> {
  return {
    _id: `row-${i}`,
    revision: 1 + (i % 3),
    propertyType: ['appartement', 'maison', 'terrain'][i % 3],
    transactionType: i % 2 === 0 ? 'vente' : 'location',
    city: { insee: String(69381 + (i % 9)), name: 'Lyon', zipcode: `6900${1 + (i % 9)}`, departmentCode: '69' },
    location: { lat: 45.75 + (i % 100) / 1000, lon: 4.83 + (i % 70) / 1000 },
    price: 150_000 + ((i * 7_919) % 400_000),
    surface: 20 + (i % 130),
    room: 1 + (i % 6),
    bedroom: i % 5,
    floor: i % 8,
    isNew: false,
    hasElevator: i % 2 === 0,
    hasParking: i % 3 === 0,
    energyClass: 'ABCDEFG'[i % 7],
    greenhouseGasClass: 'ABCDEFG'[(i * 3) % 7],
    publishers: [{ name: 'synthetic-portal-a', url: `https://synthetic-portal-a.example/annonces/${i}` }],
    createdAt: new Date(Date.UTC(2026, 5, 1 + (i % 28))).toISOString(),
    updatedAt: new Date(Date.UTC(2026, 6, 1 + (i % 28))).toISOString(),
    stations: [{ name: 'Bellecour', lines: ['A', 'D'], distance: 100 + (i % 900) }],
  };
}

/** Bytes of the pages a collection's bodies take in the store (its B-tree and overflow pages). */
async function bodyPagesBytes(dataDir: string, collection: string): Promise<number> {
  const root = open({ path: join(dataDir, LMDB_FILE_NAME), maxDbs: 8, readOnly: true });
  try {
    const stats = root.openDB({ name: collection, encoding: 'binary' }).getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    return stats.pageSize * (stats.treeBranchPageCount + stats.treeLeafPageCount + stats.overflowPages);
  } finally {
    await root.close();
  }
}

const opsOf = (docs: StoredDocument[]): PersistOp[] => docs.map((doc) => ({ collection: 'properties', id: doc._id, doc, skeleton: { _id: doc._id, revision: 1 } }));

describe('LmdbPersistence', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lmdb-persistence-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('asks for a turn of the event loop after every document it encodes: a turn is bounded by time, however uneven their cost', async () => {
    // Twenty documents whose encoding takes 3 ms each, as when the collector runs a marking step
    // inside it; asked every 64th document, the whole commit ran in one turn.
    let encoded = 0;
    const slow = (i: number): StoredDocument => ({
      _id: `slow-${i}`,
      revision: 1,
      get text() {
        busyFor(3);
        encoded++;
        return `text ${i}`;
      },
    } as StoredDocument);
    const perTurn: number[] = [];
    let turnStartedAt = performance.now();
    let encodedAtTurnStart = 0;
    // The shape of the service's slice: 5 ms of work, then the next turn.
    const yieldToEventLoop = () => {
      if (performance.now() - turnStartedAt < 5) return undefined;
      perTurn.push(encoded - encodedAtTurnStart);
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          turnStartedAt = performance.now();
          encodedAtTurnStart = encoded;
          resolve();
        }),
      );
    };
    const persistence = LmdbPersistence.open(dataDir, yieldToEventLoop);
    try {
      turnStartedAt = performance.now();
      await persistence.persist(opsOf(Array.from({ length: 20 }, (_, i) => slow(i))), () => []);
      perTurn.push(encoded - encodedAtTurnStart);
      expect(encoded).toBe(20);
      expect(Math.max(...perTurn)).toBeLessThanOrEqual(2);
      expect(persistence.read('properties', 'slow-7')).toEqual({ _id: 'slow-7', revision: 1, text: 'text 7' });
    } finally {
      await persistence.close();
    }
  });

  it('stores document bodies compressed: they read back equal and take less room than their encoding', async () => {
    const docs = Array.from({ length: 2_000 }, (_, i) => listingLike(i));
    const persistence = LmdbPersistence.open(dataDir);
    await persistence.persist(opsOf(docs), () => []);
    await persistence.flush();
    expect(persistence.read('properties', 'property-7')).toEqual(docs[7]);
    expect([...persistence.documents('properties')]).toHaveLength(docs.length);
    await persistence.close();

    const encodedBytes = docs.reduce((sum, doc) => sum + codec.pack(doc).length, 0);
    expect(statSync(join(dataDir, LMDB_FILE_NAME)).size).toBeLessThan(encodedBytes / 2);
  });

  it("compresses small bodies too, with a dictionary of the collection's first documents kept across restarts", async () => {
    const first = Array.from({ length: 2_000 }, (_, i) => rowLike(i));
    const persistence = LmdbPersistence.open(dataDir);
    await persistence.persist(opsOf(first), () => []);
    await persistence.close();

    // Reopened: the bodies read back with the stored dictionary, and the next ones are compressed with it.
    const reopened = LmdbPersistence.open(dataDir);
    const next = Array.from({ length: 2_000 }, (_, i) => rowLike(2_000 + i));
    try {
      expect(reopened.read('properties', 'row-7')).toEqual(first[7]);
      await reopened.persist(opsOf(next), () => []);
      await reopened.flush();
      expect(reopened.read('properties', 'row-3007')).toEqual(next[1_007]);
      expect([...reopened.documents('properties')]).toHaveLength(4_000);
    } finally {
      await reopened.close();
    }
    const encodedBytes = [...first, ...next].reduce((sum, doc) => sum + codec.pack(doc).length, 0);
    // lmdb's default compression leaves bodies under 1,000 bytes as they are: their pages outgrew their encoding.
    expect(await bodyPagesBytes(dataDir, 'properties')).toBeLessThan(encodedBytes / 2);
  });

  it("reads a collection stored with lmdb's default dictionary, and goes on writing with it", async () => {
    // The layout before dictionaries: a meta without one, bodies compressed with lmdb's default.
    const before = open({ path: join(dataDir, LMDB_FILE_NAME), maxDbs: 8 });
    const meta = before.openDB<Buffer, string>({ name: '$meta', encoding: 'binary' });
    const bodies = before.openDB<Buffer, string>({ name: 'properties', encoding: 'binary', compression: true });
    const old = listingLike(1);
    before.transactionSync(() => {
      void meta.put('properties', codec.pack({ paths: [] }));
      void bodies.put(old._id, codec.pack(old));
    });
    // Marked, as the store's earlier one-time rewrite of such files left them.
    markStoreFormat(before);
    await before.close();

    const persistence = LmdbPersistence.open(dataDir);
    const next = listingLike(2);
    await persistence.persist(opsOf([next]), () => []);
    await persistence.close();
    const reopened = LmdbPersistence.open(dataDir);
    try {
      expect(reopened.read('properties', old._id)).toEqual(old);
      expect(reopened.read('properties', next._id)).toEqual(next);
    } finally {
      await reopened.close();
    }
  });

  it('reads the bodies a store wrote before compression was on, and compresses what it writes next', async () => {
    // The store's layout before: a database per collection, msgpack bytes, no compression.
    const before = open({ path: join(dataDir, LMDB_FILE_NAME), maxDbs: 8 });
    const bodies = before.openDB<Buffer, string>({ name: 'properties', encoding: 'binary' });
    const old = listingLike(1);
    before.transactionSync(() => void bodies.put(old._id, codec.pack(old)));
    // Marked, as the store's earlier one-time rewrite of such files left them.
    markStoreFormat(before);
    await before.close();

    const persistence = LmdbPersistence.open(dataDir);
    try {
      expect(persistence.read('properties', old._id)).toEqual(old);
      const next = listingLike(2);
      await persistence.persist(opsOf([next]), () => []);
      expect(persistence.read('properties', next._id)).toEqual(next);
      expect([...persistence.documents('properties')].map((doc) => doc._id).sort()).toEqual([old._id, next._id]);
    } finally {
      await persistence.close();
    }
  });

  it("stores a plain-JSON collection's bodies as JSON text, and still reads the msgpack bodies written before", async () => {
    const persistence = LmdbPersistence.open(dataDir);
    const old = listingLike(1);
    const next = listingLike(2);
    await persistence.persist(opsOf([old]), () => []);
    await persistence.persist(
      opsOf([next]).map((op) => ({ ...op, plainJson: true })),
      () => [],
    );
    await persistence.close();

    const raw = open({ path: join(dataDir, LMDB_FILE_NAME), maxDbs: 8, readOnly: true });
    const meta = codec.unpack(raw.openDB<Buffer, string>({ name: '$meta', encoding: 'binary' }).getBinary('properties') as Buffer) as { dictionary: Uint8Array };
    const bodies = raw.openDB<Buffer, string>({ name: 'properties', encoding: 'binary', compression: { threshold: 200, dictionary: Buffer.from(meta.dictionary) } });
    try {
      expect(codec.unpack(bodies.getBinary(next._id) as Buffer)).toBe(JSON.stringify(next));
      expect(codec.unpack(bodies.getBinary(old._id) as Buffer)).toEqual(old);
    } finally {
      await raw.close();
    }

    const reopened = LmdbPersistence.open(dataDir);
    try {
      expect(reopened.read('properties', next._id)).toStrictEqual(next);
      expect(reopened.read('properties', old._id)).toStrictEqual(old);
      expect([...reopened.documents('properties')]).toStrictEqual([old, next]);
    } finally {
      await reopened.close();
    }
  });

  it('writes nothing of a commit that holds a key lmdb cannot take, not even the operations before it', async () => {
    const persistence = LmdbPersistence.open(dataDir);
    try {
      const fine = listingLike(1);
      const tooLong = { ...listingLike(2), _id: 'x'.repeat(3_000) };
      await expect(persistence.persist(opsOf([fine, tooLong]), () => [])).rejects.toThrow(/limit/);
      await persistence.flush();
      expect(persistence.read('properties', fine._id)).toBeUndefined();
      expect([...persistence.documents('properties')]).toEqual([]);
    } finally {
      await persistence.close();
    }
  });

  it('lets the event loop turn while a large commit is encoded, and writes commits in the order they were made', async () => {
    let pauses = 0;
    const nextTurn = () => {
      pauses++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const persistence = LmdbPersistence.open(dataDir, nextTurn);
    const large = Array.from({ length: 1_000 }, (_, i) => listingLike(i));
    const firstVersion = { ...listingLike(0), description: 'first' };
    const secondVersion = { ...listingLike(0), revision: 2, description: 'second' };
    // The large commit holds the first version of property-0; the small one after it, the second.
    // Encoded alone, the small one would reach lmdb first and the first version would win.
    const first = persistence.persist(opsOf([...large.slice(1), firstVersion]), () => []);
    const second = persistence.persist([{ collection: 'properties', id: 'property-0', doc: secondVersion, skeleton: { _id: 'property-0', revision: 2 } }], () => []);
    await Promise.all([first, second]);

    expect(pauses).toBeGreaterThanOrEqual(Math.floor(large.length / 64));
    expect(persistence.read('properties', 'property-0')).toEqual(secondVersion);
    expect([...persistence.documents('properties')]).toHaveLength(large.length);
    await persistence.close();
  });
});
