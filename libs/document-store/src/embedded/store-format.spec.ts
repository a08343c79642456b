import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { open, type RootDatabase } from 'lmdb';
import type { StoredDocument } from '../document-store.port';
import { LMDB_FILE_NAME, LmdbPersistence } from './lmdb-persistence';
import { STORE_FORMAT } from './store-format';

/**
 * A file written by lmdb 3.5.6, the store's engine before it moved back to the 2.x line: one
 * database, `coll_a`, written in three rounds; round r put `k<i>` (i < 300) as
 * `Buffer.alloc(500 + ((i * 37 + r) % 7000), r + 1)`, then removed every second key from i = r % 2.
 * What is left: the odd keys of the last round. Its free-space records are of 3.x's making.
 */
const WRITTEN_BY_LMDB_3 = join(__dirname, 'fixtures', 'written-by-lmdb-3.mdb.gz');
const LAST_ROUND = 2;
const expectedEntries = () =>
  Array.from({ length: 300 }, (_, i) => i)
    .filter((i) => i % 2 === 1)
    .map((i) => ({ key: `k${i}`, length: 500 + ((i * 37 + LAST_ROUND) % 7000), fill: LAST_ROUND + 1 }));

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'store-format-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const filePath = () => join(dataDir, LMDB_FILE_NAME);

function placeFileWrittenByLmdb3(): void {
  writeFileSync(filePath(), gunzipSync(readFileSync(WRITTEN_BY_LMDB_3)));
}

function openRaw(path = filePath()): RootDatabase {
  return open({ path, maxDbs: 8 });
}

/** The write that fails on the file as 3.x left it: 300 new entries of 3,000 bytes in one transaction. */
async function writeNewEntries(root: RootDatabase): Promise<void> {
  const db = root.openDB<Buffer, string>({ name: 'coll_a', encoding: 'binary' });
  await root.transaction(() => {
    for (let i = 0; i < 300; i++) void db.put(`x${i}`, Buffer.alloc(3000, 1));
  });
}

function entriesOf(root: RootDatabase): { key: string; length: number; fill: number }[] {
  const db = root.openDB<Buffer, string>({ name: 'coll_a', encoding: 'binary' });
  return [...db.getRange({})].filter(({ key }) => key.startsWith('k')).map(({ key, value }) => ({ key, length: value.length, fill: value[0] ?? -1 }));
}

const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);

describe('store format', () => {
  it('cannot write a file written by lmdb 3 as it is: the reason for the rewrite', () => {
    placeFileWrittenByLmdb3();
    // In a process of its own: after the failed commit the environment does not close.
    const script = `
      const { open } = require('lmdb');
      const root = open({ path: process.argv[1], maxDbs: 8 });
      const db = root.openDB({ name: 'coll_a', encoding: 'binary' });
      root.transaction(() => { for (let i = 0; i < 300; i++) db.put('x' + i, Buffer.alloc(3000, 1)); })
        .then(() => { console.log('written'); process.exit(0); }, (error) => { error.commitError?.catch(() => undefined); console.log('failed'); process.exit(0); });`;
    const outcome = execFileSync(process.execPath, ['-e', script, filePath()], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] });
    expect(outcome.trim()).toBe('failed');
  });

  it('refuses to open a file an earlier version wrote, and opens it once it is rewritten: every entry kept, the failing write now lands', async () => {
    placeFileWrittenByLmdb3();
    expect(() => LmdbPersistence.open(dataDir)).toThrow(/written by an earlier version of the store/);

    await expect(LmdbPersistence.prepare(dataDir)).resolves.toBe('rewritten');
    const root = openRaw();
    try {
      expect(entriesOf(root).sort(byKey)).toEqual(expectedEntries().sort(byKey));
      await writeNewEntries(root);
      expect(root.openDB({ name: 'coll_a', encoding: 'binary' }).getCount()).toBe(150 + 300);
    } finally {
      await root.close();
    }
    await expect(LmdbPersistence.prepare(dataDir)).resolves.toBe('current');
    const store = LmdbPersistence.open(dataDir);
    await store.close();
  });

  it('finishes a rewrite a crash interrupted: the copy left behind is started again, the old file was never touched', async () => {
    placeFileWrittenByLmdb3();
    const before = readFileSync(filePath());
    // A crash during the copy leaves a partial file beside the original.
    writeFileSync(`${filePath()}.rewriting`, before.subarray(0, before.length / 3));
    await expect(LmdbPersistence.prepare(dataDir)).resolves.toBe('rewritten');
    expect(existsSync(`${filePath()}.rewriting`)).toBe(false);
    const root = openRaw();
    try {
      expect(entriesOf(root).sort(byKey)).toEqual(expectedEntries().sort(byKey));
    } finally {
      await root.close();
    }
  });

  it('marks a new file at once, so that nothing is ever rewritten for it', async () => {
    await expect(LmdbPersistence.prepare(dataDir)).resolves.toBe('new');
    const store = LmdbPersistence.open(dataDir);
    const doc: StoredDocument = { _id: 'a', revision: 1 };
    await store.persist([{ collection: 'things', id: 'a', doc, skeleton: { _id: 'a', revision: 1 } }], () => []);
    await store.close();
    const copy = join(dataDir, 'before.mdb');
    copyFileSync(filePath(), copy);
    await expect(LmdbPersistence.prepare(dataDir)).resolves.toBe('current');
    // Not rewritten: the file is the one the store wrote.
    expect(readFileSync(filePath()).equals(readFileSync(copy))).toBe(true);
  });

  it('refuses a file marked with a format it does not know, naming it', async () => {
    const root = openRaw();
    await root.openDB<string, string>({ name: '$store', encoding: 'string' }).put('format', 'some-future-format');
    await root.close();
    expect(STORE_FORMAT).not.toBe('some-future-format');
    expect(() => LmdbPersistence.open(dataDir)).toThrow(/"some-future-format"/);
  });
});
