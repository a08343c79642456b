/**
 * The format of the embedded store's LMDB file, recorded in the file itself.
 *
 * The store runs on the `lmdb` package's 2.x line, whose free-space bookkeeping is LMDB's own.
 * The 3.x line rewrote it, and under this store's load that rewrite failed a commit
 * (`MDB_BAD_TXN: reserved freelist had a data entry with zero-size`, on the first commit after a
 * restart at 200,000 properties; lmdb-js issue 321 and Harper's issues 685 and 686 report other
 * free-list failures of 3.x). A file 3.x wrote is read correctly by 2.x but cannot be written by
 * it: a write fails its commit or trips an assertion of LMDB's that kills the process.
 *
 * So every file carries a mark, written before anything else. A file without one that holds data
 * was written by an earlier version of the store (only data directories written in the week
 * before the move back to 2.x) and is refused, saying to start from an empty data directory
 * (`npm run reset`).
 */
import type { RootDatabase } from 'lmdb';

/** Database of the mark, beside the collections' and `$meta`. */
const FORMAT_DATABASE = '$store';
const FORMAT_KEY = 'format';
/** LMDB's own free-space records (lmdb 2.x). */
export const STORE_FORMAT = 'lmdb-free-space-1';

function formatDatabase(root: RootDatabase) {
  return root.openDB<string, string>({ name: FORMAT_DATABASE, encoding: 'string' });
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
  const names = [...root.getKeys({})].map(String);
  const format = names.includes(FORMAT_DATABASE) ? (formatDatabase(root).get(FORMAT_KEY) ?? null) : null;
  return { format, holdsData: names.some((name) => name !== FORMAT_DATABASE) };
}

/** Marks a file as holding this format (synchronously: before anything else is written to it). */
export function markStoreFormat(root: RootDatabase): void {
  formatDatabase(root).putSync(FORMAT_KEY, STORE_FORMAT);
}

/** Why a file cannot be opened by this version, or null when it can (after `markStoreFormat` for a new one). */
export function unusableFormatReason(path: string, { format, holdsData }: FileFormat): string | null {
  if (format === null && holdsData) {
    return `${path} was written by an earlier version of the store, which this version cannot write to: stop the stack and run \`npm run reset\`, which starts afresh from an empty data directory`;
  }
  if (format !== null && format !== STORE_FORMAT) return `${path} holds store format "${format}", which this version does not know`;
  return null;
}
