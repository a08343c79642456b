import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LmdbPersistence } from './lmdb-persistence';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const DOCUMENTS = 20_000;
/** Forty short strings per document: the kind of run msgpackr's native extraction decodes as one string. */
function documentOf(i: number): { _id: string; revision: number; fields: string[] } {
  return { _id: `doc-${String(i).padStart(12, '0')}`, revision: 1, fields: Array.from({ length: 40 }, (_, f) => `field ${f} of document ${i}`) };
}

describe('decoding stored documents', () => {
  it('keeps no decoded document alive through a string taken from it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'plain-strings-'));
    const persistence = LmdbPersistence.open(dataDir);
    try {
      const ops = Array.from({ length: DOCUMENTS }, (_, i) => {
        const doc = documentOf(i);
        return { collection: 'docs', id: doc._id, doc, skeleton: { _id: doc._id, revision: 1 } };
      });
      await persistence.persist(ops, () => []);

      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      // What an index or a skeleton keeps of each document: its id.
      const kept = ops.map((op) => persistence.read('docs', op.id)?._id);
      collectGarbage();
      const retained = process.memoryUsage().heapUsed - before;

      expect(kept.every((id, i) => id === ops[i]?.id)).toBe(true);
      // About 60 bytes per id string and array slot; with slices of the decoded run, each id
      // held its document's ~1 KB of text (over 20 MB in all).
      expect(retained).toBeLessThan(DOCUMENTS * 250);
    } finally {
      await persistence.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
