import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { StoredDocument } from '../document-store.port';
import { LMDB_FILE_NAME, LmdbPersistence } from './lmdb-persistence';
import { fileFormatOf, STORE_FORMAT } from './store-format';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'store-format-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const filePath = () => join(dataDir, LMDB_FILE_NAME);

function openRaw(): RootDatabase {
  return open({ path: filePath(), maxDbs: 8 });
}

describe('store format', () => {
  it('marks a new file at once, and opens it again as it is', async () => {
    const store = LmdbPersistence.open(dataDir);
    const doc: StoredDocument = { _id: 'a', revision: 1 };
    await store.persist([{ collection: 'things', id: 'a', doc, skeleton: { _id: 'a', revision: 1 } }], () => []);
    await store.close();
    const root = openRaw();
    try {
      expect(fileFormatOf(root)).toEqual({ format: STORE_FORMAT, holdsData: true });
    } finally {
      await root.close();
    }
    const reopened = LmdbPersistence.open(dataDir);
    try {
      expect(reopened.read('things', 'a')).toEqual(doc);
    } finally {
      await reopened.close();
    }
  });

  it('refuses a file with data and no mark (an earlier version wrote it), saying to run npm run reset, and leaves it as it was', async () => {
    const root = openRaw();
    await root.openDB<string, string>({ name: 'coll_a', encoding: 'string' }).put('k', 'v');
    await root.close();
    expect(() => LmdbPersistence.open(dataDir)).toThrow(/written by an earlier version of the store.*npm run reset/);
    const after = openRaw();
    try {
      expect(fileFormatOf(after)).toEqual({ format: null, holdsData: true });
    } finally {
      await after.close();
    }
  });

  it('opens an unmarked file that holds no data (created and left empty) and marks it', async () => {
    await openRaw().close();
    const store = LmdbPersistence.open(dataDir);
    await store.close();
    const root = openRaw();
    try {
      expect(fileFormatOf(root).format).toBe(STORE_FORMAT);
    } finally {
      await root.close();
    }
  });

  it('refuses a file marked with a format it does not know, naming it', async () => {
    const root = openRaw();
    await root.openDB<string, string>({ name: '$store', encoding: 'string' }).put('format', 'some-future-format');
    await root.close();
    expect(STORE_FORMAT).not.toBe('some-future-format');
    expect(() => LmdbPersistence.open(dataDir)).toThrow(/"some-future-format"/);
  });
});
