import fc from 'fast-check';
import { Bitset } from './bitset';
import { PostingLists } from './posting-lists';

describe('PostingLists', () => {
  it('keeps each list sorted and free of duplicates through inserts and removals in any order', () => {
    const operation = fc.record({ add: fc.boolean(), list: fc.nat(5), doc: fc.nat(200) });
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 500 }), (operations) => {
        const lists = new PostingLists();
        const model = Array.from({ length: 6 }, () => new Set<number>());
        for (const { add, list, doc } of operations) {
          const expected = add ? !model[list]!.has(doc) : model[list]!.has(doc);
          expect(add ? lists.add(list, doc) : lists.remove(list, doc)).toBe(expected);
          if (add) model[list]!.add(doc);
          else model[list]!.delete(doc);
        }
        model.forEach((docs, list) => {
          const sorted = [...docs].sort((a, b) => a - b);
          expect(lists.toArray(list)).toEqual(sorted);
          expect(lists.size(list)).toBe(docs.size);
          for (const doc of [0, 17, 200]) expect(lists.has(list, doc)).toBe(docs.has(doc));
        });
      }),
      { numRuns: 200 },
    );
  });

  it('appends in place while documents arrive in order, and compacts without losing entries', () => {
    const lists = new PostingLists();
    for (let doc = 0; doc < 10_000; doc++) lists.add(doc % 7, doc);
    for (let doc = 0; doc < 10_000; doc += 2) lists.remove(doc % 7, doc);
    lists.compact(true);
    expect(lists.entries).toBe(5000);
    expect(lists.toArray(3).slice(0, 3)).toEqual([3, 17, 31]);
  });

  it('keeps every list intact when the holes growing lists leave behind are squeezed out', () => {
    const lists = new PostingLists();
    // Lists growing in turn move to the end of the slab one after another, leaving holes.
    for (let doc = 0; doc < 40_000; doc++) lists.add(doc % 50, doc);
    for (let doc = 0; doc < 40_000; doc += 3) lists.remove(doc % 50, doc);
    const expected = (list: number): number[] => Array.from({ length: 800 }, (_, i) => list + 50 * i).filter((doc) => doc % 3 !== 0);
    for (let list = 0; list < 50; list++) expect(lists.toArray(list)).toEqual(expected(list));
    // Automatic compaction keeps the columns for later growth; a trim gives them back.
    lists.compact(true);
    expect(lists.byteLength).toBeLessThan(lists.entries * 4 + 50 * 12 + 1024);
    for (let list = 0; list < 50; list++) expect(lists.toArray(list)).toEqual(expected(list));
  });

  it('unions into and intersects with bitsets', () => {
    const lists = new PostingLists();
    [5, 1, 9].forEach((doc) => lists.add(0, doc));
    const into = Bitset.of([2]);
    lists.orInto(0, into);
    expect(into.toArray()).toEqual([1, 2, 5, 9]);
    expect(lists.keepIn(0, Bitset.of([1, 2, 9])).toArray()).toEqual([1, 9]);
    expect(lists.toArray(42)).toEqual([]);
  });
});
