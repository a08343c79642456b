import fc from 'fast-check';
import { Bitset } from './bitset';
import { PresortedOrder } from './presorted-order';

/** A column and its documents, changed the way the store changes them. */
class Column {
  values = new Float64Array(0);
  readonly uuids: string[] = [];
  readonly alive = new Bitset();
  readonly order: PresortedOrder;

  constructor() {
    this.order = new PresortedOrder(() => this.values, this.alive, () => this.comparator(true));
  }

  set(doc: number, value: number, uuid: string): void {
    if (doc >= this.values.length) {
      const grown = new Float64Array(Math.max(doc + 1, this.values.length * 2)).fill(Number.NaN);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[doc] = value;
    this.uuids[doc] = uuid;
    this.alive.add(doc);
    this.order.touch(doc);
  }

  remove(doc: number): void {
    this.alive.delete(doc);
    this.order.touch(doc);
  }

  /** The reference order: value (NaN last in both directions), then uuid ascending. */
  comparator(ascending: boolean): (a: number, b: number) => number {
    return (a, b) => {
      const left = this.values[a] as number;
      const right = this.values[b] as number;
      if (left !== right && !(Number.isNaN(left) && Number.isNaN(right))) {
        if (Number.isNaN(left)) return 1;
        if (Number.isNaN(right)) return -1;
        return left < right === ascending ? -1 : 1;
      }
      const l = this.uuids[a] as string;
      const r = this.uuids[b] as string;
      return l < r ? -1 : l > r ? 1 : 0;
    };
  }

  expected(matches: Bitset, count: number, descending: boolean): number[] {
    return matches
      .toArray()
      .filter((doc) => this.alive.has(doc))
      .sort(this.comparator(!descending))
      .slice(0, count);
  }
}

// Few values and documents: ties, and changed documents between equal ones, are the hard cases.
const VALUES = [Number.NaN, 1, 2, 2, 2, 3, 10, 10, -5];
const DOCS = 24;
const operation = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('set' as const), doc: fc.nat(DOCS), value: fc.constantFrom(...VALUES), uuid: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f') }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('remove' as const), doc: fc.nat(DOCS) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      members: fc.array(fc.nat(DOCS), { maxLength: 30 }),
      count: fc.integer({ min: 1, max: 30 }),
      descending: fc.boolean(),
    }),
    weight: 2,
  },
);

describe('PresortedOrder', () => {
  it('gives the first matches in order (ties by uuid, missing last) through any mix of changes and queries', () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 120 }), (operations) => {
        const column = new Column();
        for (const op of operations) {
          if (op.kind === 'set') column.set(op.doc, op.value, `${op.uuid}${op.doc}`);
          else if (op.kind === 'remove') column.remove(op.doc);
          else {
            const matches = Bitset.of(op.members);
            const actual = column.order.first(matches, op.count, op.descending, column.comparator(!op.descending));
            expect(actual).toEqual(column.expected(matches, op.count, op.descending));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('merges many changed documents back into the order and keeps answering exactly', () => {
    const column = new Column();
    for (let doc = 0; doc < 3000; doc++) column.set(doc, doc % 97 === 0 ? Number.NaN : (doc * 7919) % 1000, `u${doc}`);
    const everything = Bitset.of(column.alive.toArray());
    expect(column.order.first(everything, 25, true, column.comparator(false))).toEqual(column.expected(everything, 25, true));
    // Over the merge threshold: values move, some documents go, numbers are reused by others.
    for (let doc = 0; doc < 1500; doc += 2) column.set(doc, (doc * 31) % 1000, `v${doc}`);
    for (let doc = 1; doc < 400; doc += 3) column.remove(doc);
    for (let doc = 1; doc < 100; doc += 3) column.set(doc, 500, `w${doc}`);
    const some = Bitset.of(column.alive.toArray().filter((doc) => doc % 5 !== 0));
    for (const descending of [true, false]) {
      expect(column.order.first(some, 40, descending, column.comparator(!descending))).toEqual(column.expected(some, 40, descending));
    }
    // After the merge nothing is pending: a second query walks the merged order alone.
    expect(column.order.first(some, 10, false, column.comparator(true))).toEqual(column.expected(some, 10, false));
  });

  it('keeps equal values in uuid order when a document between them changed value (largest first)', () => {
    const column = new Column();
    column.set(0, 2, 'a');
    column.set(1, 2, 'b');
    column.set(2, 2, 'c');
    const both = Bitset.of([0, 2]);
    expect(column.order.first(both, 1, true, column.comparator(false))).toEqual([0]);
    column.set(1, 9, 'b');
    expect(column.order.first(both, 1, true, column.comparator(false))).toEqual([0]);
    expect(column.order.first(Bitset.of([0, 1, 2]), 2, true, column.comparator(false))).toEqual([1, 0]);
  });

  it('answers fewer than asked when fewer match, and nothing for no match', () => {
    const column = new Column();
    for (let doc = 0; doc < 10; doc++) column.set(doc, doc, `u${doc}`);
    expect(column.order.first(Bitset.of([3, 7]), 10, true, column.comparator(false))).toEqual([7, 3]);
    expect(column.order.first(new Bitset(), 10, false, column.comparator(true))).toEqual([]);
  });
});
