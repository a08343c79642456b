/**
 * On-disk form of the embedded store: one JSON-lines file per collection, a header line then one
 * document per line. Dates are written as `{"$date": <epoch ms>}` so they come back as Dates.
 * Files are replaced atomically (write a temporary file, fsync, rename), so a crash leaves either
 * the previous or the new snapshot, never a torn one.
 */
import { readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainObject } from '../document-paths';

const FORMAT = 1;
const EXTENSION = '.jsonl';
// Bigger writes mean fewer syscalls; this bound keeps the pending string small.
const WRITE_CHUNK_CHARS = 1 << 20;

interface FileHeader {
  collection: string;
  format: number;
  count: number;
}

export function collectionFilePath(dataDir: string, collection: string): string {
  // Collection names may contain characters that are not safe in file names (`/`, `:`...).
  return join(dataDir, encodeURIComponent(collection) + EXTENSION);
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify has already called Date#toJSON on `value`; the holder still has the Date.
  const raw = (this as Record<string, unknown>)[key];
  if (raw instanceof Date) {
    const time = raw.getTime();
    return { $date: Number.isNaN(time) ? null : time };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (isPlainObject(value) && '$date' in value && Object.keys(value).length === 1) {
    const time = value['$date'];
    if (typeof time === 'number') return new Date(time);
    if (time === null) return new Date(Number.NaN);
  }
  return value;
}

export function encodeDocument(doc: unknown): string {
  return JSON.stringify(doc, replacer);
}

export function decodeDocument(line: string): unknown {
  return JSON.parse(line, reviver) as unknown;
}

let tmpCounter = 0;

/** Atomically replaces the collection's file with the given documents. */
export async function writeCollectionFile(dataDir: string, collection: string, docs: readonly unknown[]): Promise<void> {
  const file = collectionFilePath(dataDir, collection);
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
  const header: FileHeader = { collection, format: FORMAT, count: docs.length };
  try {
    const handle = await open(tmp, 'w');
    try {
      let chunk = JSON.stringify(header) + '\n';
      for (const doc of docs) {
        chunk += encodeDocument(doc) + '\n';
        if (chunk.length >= WRITE_CHUNK_CHARS) {
          await handle.write(chunk);
          chunk = '';
        }
      }
      if (chunk) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dataDir);
}

/** Makes the rename itself durable; not every platform lets a directory be fsynced. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort only.
  }
}

/** Documents of the collection's file, or null when it was never flushed. */
export function readCollectionFile(dataDir: string, collection: string): unknown[] | null {
  const file = collectionFilePath(dataDir, collection);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const [headerLine, ...docLines] = lines;
  const header = headerLine === undefined ? null : (JSON.parse(headerLine) as unknown);
  if (!isPlainObject(header) || header['format'] !== FORMAT || header['collection'] !== collection) {
    throw new Error(`${file}: not a document store file for collection "${collection}"`);
  }
  if (header['count'] !== docLines.length) {
    throw new Error(`${file}: expected ${String(header['count'])} documents, found ${docLines.length}`);
  }
  return docLines.map((line, i) => {
    try {
      return decodeDocument(line);
    } catch (error) {
      throw new Error(`${file}: line ${i + 2} is not valid JSON (${(error as Error).message})`);
    }
  });
}
