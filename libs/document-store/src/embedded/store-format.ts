/**
 * The format of the embedded store's LMDB file, recorded in the file itself.
 *
 * The store runs on the `lmdb` package's 2.x line, whose free-space bookkeeping is LMDB's own.
 * The 3.x line rewrote it, and under this store's load that rewrite failed a commit
 * (`MDB_BAD_TXN: reserved freelist had a data entry with zero-size`, on the first commit after a
 * restart at 200,000 properties; lmdb-js issue 321 and Harper's issues 685 and 686 report other
 * free-list failures of 3.x, open).
 *
 * A file 3.x wrote is read correctly by 2.x but cannot be written by it: a write fails its commit
 * or trips an assertion of LMDB's that kills the process, and so does a write to LMDB's own
 * (page by page) copy of such a file. Files carry a format mark since then. A file without one
 * that holds data is rewritten once, at start: every entry of every database is copied, as stored,
 * into a new file, which is marked and then put in place of the old one with one rename. A crash
 * before the rename leaves the old file, and the next start copies again.
 */
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { open, type RootDatabase } from 'lmdb';

/** Database of the mark, beside the collections' and `$meta`. */
const FORMAT_DATABASE = '$store';
const FORMAT_KEY = 'format';
/** LMDB's own free-space records (lmdb 2.x). */
export const STORE_FORMAT = 'lmdb-free-space-1';

/** Databases the rewrite must be able to open: as many as the store itself. */
export interface StoreFormatOptions {
  maxDbs: number;
  mapSize: number;
}

export type StoreFormatOutcome = 'new' | 'current' | 'rewritten';

function formatDatabase(root: RootDatabase) {
  return root.openDB<string, string>({ name: FORMAT_DATABASE, encoding: 'string' });
}

/** Names of the file's databases. */
function databaseNames(root: RootDatabase): string[] {
  return [...root.getKeys({})].map(String);
}

/** What a file holds: its mark (null when it has none), and whether it holds any database besides the mark's. */
export interface FileFormat {
  format: string | null;
  holdsData: boolean;
}

/**
 * Reads a file's mark without writing: opening a database that does not exist creates it, so the
 * mark's database is opened only once it is known to be there.
 */
export function fileFormatOf(root: RootDatabase): FileFormat {
  const names = databaseNames(root);
  const format = names.includes(FORMAT_DATABASE) ? (formatDatabase(root).get(FORMAT_KEY) ?? null) : null;
  return { format, holdsData: names.some((name) => name !== FORMAT_DATABASE) };
}

/** Marks a file as holding this format (synchronously: before anything else is written to it). */
export function markStoreFormat(root: RootDatabase): void {
  formatDatabase(root).putSync(FORMAT_KEY, STORE_FORMAT);
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Entries copied per write transaction of the rewrite. */
const COPY_BATCH = 10_000;

/** Every entry of every database of `from` into the same database of `to`, as stored (raw keys and values). */
async function copyDatabases(from: RootDatabase, to: RootDatabase): Promise<void> {
  for (const name of databaseNames(from)) {
    const source = from.openDB<Buffer, Buffer>({ name, encoding: 'binary', keyEncoding: 'binary' });
    const target = to.openDB<Buffer, Buffer>({ name, encoding: 'binary', keyEncoding: 'binary' });
    let batch: [Buffer, Buffer][] = [];
    const flush = async () => {
      const entries = batch;
      batch = [];
      await to.transaction(() => {
        for (const [key, value] of entries) void target.put(key, value);
      });
    };
    for (const { key, value } of source.getRange({})) {
      batch.push([key, value]);
      if (batch.length >= COPY_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  }
}

/**
 * Makes the file at `path` safe for this version to write, before the store opens it: nothing to
 * do for a new file or a marked one; an unmarked file holding data is copied, entry by entry, into
 * a new file, which is marked and put in its place (see above). Reading the old file is safe.
 */
export async function ensureStoreFormat(path: string, options: StoreFormatOptions): Promise<StoreFormatOutcome> {
  if (!existsSync(path)) return 'new';
  const copyPath = `${path}.rewriting`;
  const old = open({ path, maxDbs: options.maxDbs, mapSize: options.mapSize, readOnly: true });
  try {
    const { format, holdsData } = fileFormatOf(old);
    if (format !== null) return 'current';
    if (!holdsData) return 'new';
    // Left by a rewrite that did not finish.
    rmSync(copyPath, { force: true });
    rmSync(`${copyPath}-lock`, { force: true });
    const copy = open({ path: copyPath, maxDbs: options.maxDbs, mapSize: options.mapSize });
    try {
      await copyDatabases(old, copy);
      markStoreFormat(copy);
      await copy.flushed;
    } finally {
      await copy.close();
    }
  } finally {
    await old.close();
  }
  syncPath(copyPath);
  renameSync(copyPath, path);
  rmSync(`${copyPath}-lock`, { force: true });
  syncPath(dirname(path));
  return 'rewritten';
}
