import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { PropertySearchIndex } from '../search/property-search-index';
import { SEARCH_ROW_VERSION } from '../search/search-row';

/**
 * The search index as it stood when the service stopped, in one file, so that the next start
 * restores it in about a second instead of decoding and indexing every stored row (about ten
 * seconds at 200,000 properties).
 *
 * The file is only an accelerator: the stored rows and checkpoints stay the truth. A snapshot is
 * used only when it was taken at exactly the search index's stored checkpoint, by the same layout
 * of the index and the same V8 (its serialisation format); anything else (a crash after more
 * commits, a rebuild, an upgrade, a torn file) falls back to the rows. It is deleted once read.
 */
const FORMAT = 1;

interface SnapshotHeader {
  format: number;
  rowVersion: number;
  v8: string;
  /** The search index's checkpoint the index reflects. */
  position: number;
  properties: number;
}

export type SnapshotReading = { index: PropertySearchIndex } | { index: null; reason: string };

function currentHeader(position: number, properties: number): SnapshotHeader {
  return { format: FORMAT, rowVersion: SEARCH_ROW_VERSION, v8: process.versions.v8, position, properties };
}

/** Writes the snapshot durably: a new file, synced, then renamed over the old one. */
export function writeSearchIndexSnapshot(file: string, index: PropertySearchIndex, position: number): number {
  const header = serialize(currentHeader(position, index.size));
  const state = serialize(index.exportState());
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const temporary = `${file}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    for (const part of [length, header, state]) {
      for (let written = 0; written < part.length; ) written += writeSync(fd, part, written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  return length.length + header.length + state.length;
}

/** The index of the snapshot taken at `position`, or why there is none to use. Deletes the file. */
export function readSearchIndexSnapshot(file: string, position: number | null): SnapshotReading {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { index: null, reason: 'no snapshot' };
  }
  rmSync(file, { force: true });
  try {
    const headerLength = bytes.readUInt32LE(0);
    const header = deserialize(bytes.subarray(4, 4 + headerLength)) as SnapshotHeader;
    const expected = currentHeader(position ?? -1, header.properties);
    for (const key of ['format', 'rowVersion', 'v8', 'position'] as const) {
      if (header[key] !== expected[key]) return { index: null, reason: `snapshot ${key} ${String(header[key])}, not ${String(expected[key])}` };
    }
    const state = ownedArrays(deserialize(bytes.subarray(4 + headerLength)));
    const index = PropertySearchIndex.fromState(state as Parameters<typeof PropertySearchIndex.fromState>[0]);
    if (index.size !== header.properties) return { index: null, reason: `snapshot holds ${index.size} properties, its header ${header.properties}` };
    return { index };
  } catch (error) {
    return { index: null, reason: `unreadable snapshot: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const TYPED_ARRAYS: Record<string, new (source: ArrayLike<number>) => unknown> = { Float64Array, Uint32Array, Int32Array, Uint16Array, Uint8Array, Int8Array };

/**
 * Gives every typed array of the state its own memory: deserialised, they are views into the
 * file's buffer, which would stay whole in memory as long as one of them lives. The copies are
 * made with this module's constructors, so `instanceof` holds whichever realm deserialised them.
 */
function ownedArrays(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    const kind = Object.prototype.toString.call(value).slice(8, -1);
    const Constructor = TYPED_ARRAYS[kind];
    if (Constructor === undefined) throw new Error(`unexpected ${kind} in the snapshot`);
    return new Constructor(value as unknown as ArrayLike<number>);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object') value[i] = ownedArrays(item);
    }
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item !== null && typeof item === 'object') record[key] = ownedArrays(item);
    }
  }
  return value;
}
