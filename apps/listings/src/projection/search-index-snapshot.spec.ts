import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import fc from 'fast-check';
import { propertyDocumentOf, uuidPool } from '../search/property-search.arbitraries';
import { PropertySearchIndex } from '../search/property-search-index';
import { SEARCH_ROW_VERSION, searchRowOf } from '../search/search-row';
import { readSearchIndexSnapshot, writeSearchIndexSnapshot } from './search-index-snapshot';

describe('search index snapshot file', () => {
  let dir: string;
  let file: string;
  const index = new PropertySearchIndex();
  for (const doc of fc.sample(propertyDocumentOf(uuidPool(60)), { numRuns: 60, seed: 5 })) index.upsert(searchRowOf(doc));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'search-index-snapshot-'));
    file = join(dir, 'search-index.snapshot');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back the same index at the position it was taken at, once: the file is deleted when read', () => {
    writeSearchIndexSnapshot(file, index, 1200);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    const read = readSearchIndexSnapshot(file, 1200);
    expect(read.index?.size).toBe(index.size);
    expect(read.index?.exportState()).toEqual(index.exportState());
    expect(existsSync(file)).toBe(false);
    expect(readSearchIndexSnapshot(file, 1200)).toEqual({ index: null, reason: 'no snapshot' });
  });

  it('is not used at another position, nor without a checkpoint', () => {
    writeSearchIndexSnapshot(file, index, 1200);
    expect(readSearchIndexSnapshot(file, 1300)).toEqual({ index: null, reason: 'snapshot position 1200, not 1300' });
    writeSearchIndexSnapshot(file, index, 1200);
    expect(readSearchIndexSnapshot(file, null)).toEqual({ index: null, reason: 'snapshot position 1200, not -1' });
  });

  it('is not used when written by another layout of the index or another V8', () => {
    for (const [key, value] of [
      ['format', 99],
      ['v8', '0.0.0'],
    ] as const) {
      writeSearchIndexSnapshot(file, index, 1200);
      const bytes = readFileSync(file);
      const headerLength = bytes.readUInt32LE(0);
      const header = { format: 1, rowVersion: SEARCH_ROW_VERSION, v8: process.versions.v8, position: 1200, properties: index.size, [key]: value };
      const newHeader = serialize(header);
      const length = Buffer.alloc(4);
      length.writeUInt32LE(newHeader.length);
      writeFileSync(file, Buffer.concat([length, newHeader, bytes.subarray(4 + headerLength)]));
      expect(readSearchIndexSnapshot(file, 1200)).toEqual({ index: null, reason: `snapshot ${key} ${value}, not ${key === 'format' ? 1 : process.versions.v8}` });
    }
  });

  it('says a torn or garbled file is unreadable instead of failing the start', () => {
    writeSearchIndexSnapshot(file, index, 1200);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const torn = readSearchIndexSnapshot(file, 1200);
    expect(torn.index).toBeNull();
    expect(torn.index === null && torn.reason).toMatch(/^unreadable snapshot/);
    writeFileSync(file, Buffer.from('not a snapshot at all'));
    expect(readSearchIndexSnapshot(file, 1200).index).toBeNull();
  });

  it('replaces an older snapshot whole', () => {
    writeSearchIndexSnapshot(file, new PropertySearchIndex(), 5);
    writeSearchIndexSnapshot(file, index, 1200);
    expect(readSearchIndexSnapshot(file, 1200).index?.size).toBe(index.size);
  });
});
