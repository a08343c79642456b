import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { ShardedMap, shardIndexOf } from './sharded-map';

type Key = string | number | boolean | null;
type Operation = { kind: 'set'; key: Key; value: number } | { kind: 'delete'; key: Key } | { kind: 'clear' };

const key = fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

describe('ShardedMap', () => {
  it('answers as a Map given the same operations (order aside)', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), fc.array(key, { maxLength: 20 }), (operations, probes) => {
        const expected = new Map<Key, number>();
        const sharded = new ShardedMap<Key, number>();
        for (const op of operations) {
          if (op.kind === 'set') {
            expect(sharded.set(op.key, op.value)).toBe(sharded);
            expected.set(op.key, op.value);
          } else if (op.kind === 'delete') {
            expect(sharded.delete(op.key)).toBe(expected.delete(op.key));
          } else {
            sharded.clear();
            expected.clear();
          }
        }
        expect(sharded.size).toBe(expected.size);
        expect(new Map(sharded.entries())).toEqual(expected);
        expect(new Map(sharded)).toEqual(expected);
        expect(new Set(sharded.keys())).toEqual(new Set(expected.keys()));
        expect([...sharded.values()].sort()).toEqual([...expected.values()].sort());
        for (const probe of [...probes, ...expected.keys()]) {
          expect(sharded.has(probe)).toBe(expected.has(probe));
          expect(sharded.get(probe)).toBe(expected.get(probe));
        }
      }),
    );
  });

  it('keeps an overwritten key in its place', () => {
    const map = new ShardedMap<string, number>(['a', 'b', 'c', 'd'].map((k, i) => [k, i]));
    const order = [...map.keys()];
    map.set('b', 10);
    expect([...map.keys()]).toEqual(order);
    expect(map.get('b')).toBe(10);
    expect(map.size).toBe(4);
  });

  it('calls forEach with value, key and the map itself', () => {
    const map = new ShardedMap<string, number>([['x', 1], ['y', 2]]);
    const seen: [string, number][] = [];
    map.forEach((value, k, self) => {
      expect(self).toBe(map);
      seen.push([k, value]);
    });
    expect(seen.sort()).toEqual([['x', 1], ['y', 2]]);
  });

  it.each([
    ['uuids', () => randomUUID()],
    ['counters', (i: number) => `delivery-${i}`],
    ['outbox positions', (i: number) => `${String((1_000_000 + i) * 1000).padStart(16, '0')}:0000`],
    ['document numbers', (i: number) => i],
  ])('spreads %s evenly over its maps, so that no growth copies much of the table at once', (_kind, keyOf) => {
    const map = new ShardedMap<string | number, number>();
    for (let i = 0; i < 64_000; i++) map.set(keyOf(i), i);
    expect(map.size).toBe(64_000);
    // 64 maps: about 1,000 keys each.
    expect(map.largestShardSize).toBeLessThan(1_300);
  });

  it('puts keys that are neither strings nor numbers in the first map', () => {
    expect(shardIndexOf(null)).toBe(0);
    expect(shardIndexOf(true)).toBe(0);
    expect(shardIndexOf(undefined)).toBe(0);
    for (const k of ['', 'a', randomUUID(), 0, -1, 2 ** 40, 0.5, Number.NaN]) {
      expect(shardIndexOf(k)).toBeGreaterThanOrEqual(0);
      expect(shardIndexOf(k)).toBeLessThan(64);
    }
  });
});
