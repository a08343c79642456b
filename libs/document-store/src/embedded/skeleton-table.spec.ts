import fc from 'fast-check';
import { ColumnarSkeletonTable, fitsColumns, skeletonTableFor } from './skeleton-table';
import { skeletonOf as skeletonOfDocument, type Skeleton } from './skeleton';

/** `skeletonOf` for documents written as literals. */
const skeletonOf = (doc: Record<string, unknown> & { _id: string; revision: number }, paths: readonly string[]) => skeletonOfDocument(doc, paths);

const skeleton = (id: string, revision: number): Skeleton => ({ _id: id, revision });

describe('skeleton tables', () => {
  it('without index paths, answers as a map of `_id` + `revision` skeletons, an overwrite keeping its place', () => {
    const table = new ColumnarSkeletonTable([]);
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

  it('makes the skeletons of index paths again from their values, null included, and forgets a value that went away', () => {
    const paths = ['state.propertyId', 'state.commune.insee', 'site'];
    const table = new ColumnarSkeletonTable(paths);
    const doc = { _id: 'a', revision: 1, site: 'seloger', state: { propertyId: null, commune: { insee: '69123', name: 'Lyon' }, price: 1 } };
    table.set('a', skeletonOf(doc, paths));
    expect(table.get('a')).toEqual({ _id: 'a', revision: 1, site: 'seloger', state: { propertyId: null, commune: { insee: '69123' } } });

    table.set('a', skeletonOf({ _id: 'a', revision: 2, state: { propertyId: 'p1', commune: { insee: '75056' } } }, paths));
    expect(table.get('a')).toEqual({ _id: 'a', revision: 2, state: { propertyId: 'p1', commune: { insee: '75056' } } });
    expect(table.delete('a')).toBe(true);
    expect(table.get('a')).toBeUndefined();
  });

  it('keeps whole a skeleton whose path stops at an array or half way, and columns again once it no longer does', () => {
    const paths = ['photos.url', 'state.propertyId'];
    const table = new ColumnarSkeletonTable(paths);
    const arrayOnTheWay = skeletonOf({ _id: 'a', revision: 1, photos: [{ url: 'u' }], state: { propertyId: 'p' } }, paths);
    table.set('a', arrayOnTheWay);
    expect(table.get('a')).toBe(arrayOnTheWay);
    const halfThere = skeletonOf({ _id: 'b', revision: 1, state: { other: 1 } }, paths);
    table.set('b', halfThere);
    expect(table.get('b')).toBe(halfThere);
    const undefinedLeaf = { _id: 'c', revision: 1, state: { propertyId: undefined } } as Skeleton;
    table.set('c', undefinedLeaf);
    expect(table.get('c')).toBe(undefinedLeaf);

    table.set('a', skeletonOf({ _id: 'a', revision: 2, state: { propertyId: 'q' } }, paths));
    expect(table.get('a')).toEqual({ _id: 'a', revision: 2, state: { propertyId: 'q' } });
    expect(table.get('a')).not.toBe(arrayOnTheWay);

    // And from columns to whole: the columns forget the values they held.
    const whole = skeletonOf({ _id: 'a', revision: 3, photos: [{ url: 'v' }], state: { propertyId: 'q' } }, paths);
    table.set('a', whole);
    expect(table.get('a')).toBe(whole);
    expect(table.delete('a')).toBe(true);
    table.set('a', skeletonOf({ _id: 'a', revision: 4 }, paths));
    expect(table.get('a')).toEqual({ _id: 'a', revision: 4 });
  });

  it('gives back what `skeletonOf` made, for any document', () => {
    const paths = ['a.b', 'a.c', 'd'];
    const leaf = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 3 }), fc.array(fc.integer(), { maxLength: 2 }));
    const node = fc.oneof(leaf, fc.record({ b: leaf, c: leaf }, { requiredKeys: [] }), fc.array(fc.record({ b: leaf }), { maxLength: 2 }));
    fc.assert(
      fc.property(fc.record({ a: node, d: node }, { requiredKeys: [] }), fc.nat(), (fields, revision) => {
        const expected = skeletonOf({ _id: 'x', revision, ...fields }, paths);
        const table = new ColumnarSkeletonTable(paths);
        table.set('x', expected);
        expect(table.get('x')).toEqual(expected);
      }),
    );
  });

  it('keeps the skeletons themselves when a path lies within another or names `_id`', () => {
    expect(fitsColumns(['state.propertyId', 'state.commune'])).toBe(true);
    expect(fitsColumns(['state', 'state.propertyId'])).toBe(false);
    expect(fitsColumns(['_id'])).toBe(false);
    const loaded = new Map([['a', { _id: 'a', revision: 1, city: '69123' } as Skeleton]]);
    expect(skeletonTableFor([], loaded)).toBeInstanceOf(ColumnarSkeletonTable);
    expect(skeletonTableFor([], loaded).get('a')).toEqual({ _id: 'a', revision: 1 });
    expect(skeletonTableFor(['city'], loaded).get('a')).toEqual({ _id: 'a', revision: 1, city: '69123' });
    expect(skeletonTableFor(['city', 'city.insee'], loaded)).toBe(loaded);
  });
});
