import fc from 'fast-check';
import { Slab } from './slab';

describe('Slab', () => {
  const read = (slab: Slab<{ a: Float64ArrayConstructor; b: Uint8ArrayConstructor }>, owner: number): [number, number][] => {
    const start = slab.start(owner);
    return Array.from({ length: slab.count(owner) }, (_, i) => [slab.columns.a[start + i] as number, slab.columns.b[start + i] as number]);
  };
  const write = (slab: Slab<{ a: Float64ArrayConstructor; b: Uint8ArrayConstructor }>, owner: number, rows: [number, number][]): void => {
    const start = slab.resize(owner, rows.length, false);
    rows.forEach(([a, b], i) => {
      slab.columns.a[start + i] = a;
      slab.columns.b[start + i] = b;
    });
  };

  it('keeps every run intact through rewrites, growth, releases and compaction', () => {
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), owner: fc.nat(20), rows: fc.array(fc.tuple(fc.double({ noNaN: true }), fc.nat(255)), { maxLength: 40 }) }),
      fc.record({ kind: fc.constant('release' as const), owner: fc.nat(20) }),
      fc.record({ kind: fc.constant('compact' as const), trim: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 300 }), (operations) => {
        const slab = new Slab({ a: Float64Array, b: Uint8Array });
        const model = new Map<number, [number, number][]>();
        for (const op of operations) {
          if (op.kind === 'write') {
            write(slab, op.owner, op.rows);
            model.set(op.owner, op.rows);
          } else if (op.kind === 'release') {
            slab.release(op.owner);
            model.delete(op.owner);
          } else slab.compact(op.trim);
        }
        for (let owner = 0; owner <= 20; owner++) expect(read(slab, owner)).toEqual(model.get(owner) ?? []);
        expect(slab.liveRows).toBe([...model.values()].reduce((sum, rows) => sum + rows.length, 0));
      }),
      { numRuns: 200 },
    );
  });

  it('moves a growing run with its rows when asked to keep them', () => {
    const slab = new Slab({ a: Float64Array, b: Uint8Array });
    write(slab, 0, [[1, 1]]);
    write(slab, 1, [[2, 2]]);
    const start = slab.resize(0, 3, true);
    slab.columns.a[start + 1] = 10;
    slab.columns.a[start + 2] = 11;
    expect(read(slab, 0).map(([a]) => a)).toEqual([1, 10, 11]);
    expect(read(slab, 1)).toEqual([[2, 2]]);
  });

  it('trims every run to its rows', () => {
    const slab = new Slab({ a: Float64Array, b: Uint8Array });
    for (let owner = 0; owner < 100; owner++) for (let n = 1; n <= 5; n++) slab.resize(owner, n, true);
    const before = slab.byteLength;
    slab.compact(true);
    expect(slab.liveRows).toBe(500);
    expect(slab.byteLength).toBeLessThan(before);
  });
});
