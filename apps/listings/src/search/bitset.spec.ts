import fc from 'fast-check';
import { Bitset, withScratchBitsets } from './bitset';

const members = fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 60 });
const sorted = (values: Iterable<number>): number[] => [...values].sort((a, b) => a - b);

describe('Bitset', () => {
  it('adds, deletes and answers membership, growing past its capacity', () => {
    const set = new Bitset(10);
    set.add(3);
    set.add(31);
    set.add(32);
    set.add(1000);
    set.delete(31);
    set.delete(5000);
    expect(set.has(3)).toBe(true);
    expect(set.has(31)).toBe(false);
    expect(set.has(1000)).toBe(true);
    expect(set.has(100_000)).toBe(false);
    expect(set.toArray()).toEqual([3, 32, 1000]);
    expect(set.count()).toBe(3);
  });

  it('counts and lists the high bit of a word', () => {
    const set = Bitset.of([31, 63, 0]);
    expect(set.count()).toBe(3);
    expect(set.toArray()).toEqual([0, 31, 63]);
  });

  it('combines like sets do, whatever the lengths of the two', () => {
    fc.assert(
      fc.property(members, members, (a, b) => {
        const left = Bitset.of(a);
        const right = Bitset.of(b);
        const inB = new Set(b);
        expect(left.clone().and(right).toArray()).toEqual(sorted(a.filter((x) => inB.has(x))));
        expect(left.clone().or(right).toArray()).toEqual(sorted(new Set([...a, ...b])));
        expect(left.clone().andNot(right).toArray()).toEqual(sorted(a.filter((x) => !inB.has(x))));
        expect(left.count()).toBe(a.length);
        expect(left.isEmpty()).toBe(a.length === 0);
      }),
    );
  });

  it('retains the members a predicate accepts', () => {
    fc.assert(
      fc.property(members, (a) => {
        const set = Bitset.of(a).retain((bit) => bit % 3 === 0);
        expect(set.toArray()).toEqual(sorted(a.filter((x) => x % 3 === 0)));
      }),
    );
  });

  it('leaves the original untouched when a clone changes', () => {
    const original = Bitset.of([1, 2, 3]);
    const copy = original.clone();
    copy.delete(2);
    copy.add(4);
    expect(original.toArray()).toEqual([1, 2, 3]);
    expect(copy.toArray()).toEqual([1, 3, 4]);
  });
});

describe('Bitset.trim', () => {
  it('drops empty trailing words and keeps every member', () => {
    const set = Bitset.of([3, 40, 5000]);
    set.delete(5000);
    const before = set.byteLength;
    set.trim();
    expect(set.byteLength).toBeLessThan(before);
    expect(set.toArray()).toEqual([3, 40]);
    set.add(7000);
    expect(set.toArray()).toEqual([3, 40, 7000]);
  });

  it('keeps the members whose value lies in a closed range, never one without a value', () => {
    const values = new Float64Array([5, Number.NaN, 10, 15, 20, -1, 10]);
    const set = Bitset.of([0, 1, 2, 3, 4, 5, 6]);
    expect(set.retainInRange(values, 10, 15).toArray()).toEqual([2, 3, 6]);
    expect(Bitset.of([0, 1, 5]).retainInRange(values, -Infinity, Infinity).toArray()).toEqual([0, 5]);
    expect(Bitset.of([0, 2]).retainInRange(values, 11, 12).isEmpty()).toBe(true);
  });
});

describe('transient sets (withScratchBitsets)', () => {
  const bufferOf = (set: Bitset): ArrayBufferLike => (set as unknown as { words: Uint32Array }).words.buffer;

  it('share one buffer from query to query, each set handed out empty', () => {
    const first = withScratchBitsets(() => {
      const set = Bitset.transient(1_000);
      for (let bit = 0; bit < 1_000; bit += 3) set.add(bit);
      return bufferOf(set);
    });
    const second = withScratchBitsets(() => {
      const set = Bitset.transient(1_000);
      expect(set.isEmpty()).toBe(true);
      return bufferOf(set);
    });
    expect(second).toBe(first);
  });

  it('are independent of each other, also once the buffer had to grow', () => {
    withScratchBitsets(() => {
      const sets = Array.from({ length: 40 }, (_, i) => {
        const set = Bitset.transient(5_000);
        set.add(i);
        set.add(4_999 - i);
        return set;
      });
      sets.forEach((set, i) => expect(set.toArray()).toEqual([i, 4_999 - i]));
      const copy = sets[3]!.clone().or(sets[4]!);
      expect(copy.toArray()).toEqual([3, 4, 4_995, 4_996]);
      expect(sets[3]!.toArray()).toEqual([3, 4_996]);
    });
  });

  it('are ordinary sets outside a query, kept as long as they are referenced', () => {
    const set = Bitset.transient(100);
    set.add(42);
    withScratchBitsets(() => Bitset.transient(100).add(7));
    expect(set.toArray()).toEqual([42]);
  });
});
