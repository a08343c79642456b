import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { forgetInterned, internedCount, internString, largestInternShard } from './intern-string';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const IDS = 50_000;
const COPIES = 5;

/** A new string equal to `value` (what each decode of a stored id makes). */
const copyOf = (value: string) => value.split('').join('');

/** Heap in use once collections are done (sweeping finishes after `gc()` returns, hence the pauses). */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

/** Heap kept by `COPIES` arrays of copies of `ids`, each copy passed through `keep`. */
async function retainedBy(ids: string[], keep: (value: string) => string): Promise<{ bytes: number; arrays: string[][] }> {
  const before = await settledHeap();
  const arrays = Array.from({ length: COPIES }, () => ids.map((id) => keep(copyOf(id))));
  return { bytes: (await settledHeap()) - before, arrays };
}

describe('internString', () => {
  it('returns an equal string, for any value (empty, numeric, non-ASCII)', () => {
    for (const value of ['', '0', '42', '-1', '4294967295', 'é', '日本', 'constructor', '__proto__', randomUUID()]) {
      expect(internString(copyOf(value))).toBe(value);
    }
  });

  it('keeps one string per value however many copies are interned', async () => {
    const ids = Array.from({ length: IDS }, () => randomUUID());
    // A first round settles what the setup left behind.
    await retainedBy(ids, (value) => value);
    const plain = await retainedBy(ids, (value) => value);
    const plainBytes = plain.bytes;
    plain.arrays.length = 0;
    const interned = await retainedBy(ids, internString);

    expect(interned.arrays.every((array) => array.every((id, i) => id === ids[i]))).toBe(true);
    // Plain: five copies of 50,000 uuids (about 56 bytes each) plus the arrays' slots. Interned:
    // one string per uuid plus the same slots.
    expect(plainBytes).toBeGreaterThan(COPIES * IDS * 50);
    expect(interned.bytes).toBeLessThan(plainBytes * 0.5);
  });

  it('drops a forgotten value from the pool; interning it again starts a new shared copy', () => {
    const id = randomUUID();
    const first = internString(copyOf(id));
    const size = internedCount();
    expect(internString(copyOf(id))).toBe(first);
    expect(internedCount()).toBe(size);

    forgetInterned(id);
    expect(internedCount()).toBe(size - 1);
    const again = copyOf(id);
    expect(internString(again)).toBe(id);
    expect(internedCount()).toBe(size);
  });

  it.each([
    ['uuids', () => randomUUID()],
    ['counters', (i: number) => `delivery-${i}`],
    ['outbox positions', (i: number) => `${String((1_000_000 + i) * 1000).padStart(16, '0')}:0000`],
  ])('spreads %s evenly over its maps, so that no map grows by copying much of the pool at once', (_kind, valueOf) => {
    const before = internedCount();
    const values = Array.from({ length: 64_000 }, (_, i) => valueOf(i));
    for (const value of values) internString(value);
    const added = internedCount() - before;
    expect(added).toBe(64_000);
    // 64 maps: about 1,000 values each for every 64,000.
    expect(largestInternShard()).toBeLessThan((internedCount() / 64) * 1.3);
    for (const value of values) forgetInterned(value);
    expect(internedCount()).toBe(before);
  });
});
