import { RevisionTable, skeletonTableFor } from './skeleton-table';
import type { Skeleton } from './skeleton';

const skeleton = (id: string, revision: number): Skeleton => ({ _id: id, revision });

describe('skeleton tables', () => {
  it('a revision table answers as a map of `_id` + `revision` skeletons, an overwrite keeping its place', () => {
    const table = new RevisionTable();
    table.set('a', skeleton('a', 1));
    table.set('b', skeleton('b', 2_000_000_000_001));
    table.set('c', skeleton('c', 3));
    const order = [...table.keys()];
    table.set('a', skeleton('a', 4));
    expect([...table.keys()]).toEqual(order);
    expect(table.delete('c')).toBe(true);
    expect(table.delete('c')).toBe(false);

    expect(table.size).toBe(2);
    expect(table.get('a')).toEqual({ _id: 'a', revision: 4 });
    expect(table.get('b')).toEqual({ _id: 'b', revision: 2_000_000_000_001 });
    expect(table.get('c')).toBeUndefined();
    expect(table.has('b')).toBe(true);
    expect([...table.keys()].sort()).toEqual(['a', 'b']);
    expect(new Map(table.entries())).toEqual(
      new Map([
        ['a', { _id: 'a', revision: 4 }],
        ['b', { _id: 'b', revision: 2_000_000_000_001 }],
      ]),
    );
    table.clear();
    expect(table.size).toBe(0);
  });

  it('keeps revisions only for a collection without index paths, the skeletons themselves otherwise', () => {
    const loaded = new Map([['a', { _id: 'a', revision: 1, city: '69123' } as Skeleton]]);
    expect(skeletonTableFor([], loaded)).toBeInstanceOf(RevisionTable);
    expect(skeletonTableFor([], loaded).get('a')).toEqual({ _id: 'a', revision: 1 });
    expect(skeletonTableFor(['city'], loaded)).toBe(loaded);
  });
});
