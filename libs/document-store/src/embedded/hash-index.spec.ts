import fc from 'fast-check';
import { HashIndex, type IndexKey } from './hash-index';

type Doc = { tag?: string | string[] | null };

/** What a lookup of `key` must answer, from the documents as they are. */
function holdersOf(docs: ReadonlyMap<string, Doc>, key: IndexKey): string[] {
  const ids: string[] = [];
  for (const [id, doc] of docs) {
    const value = doc.tag;
    const keys: (string | null)[] = value === undefined || value === null ? [null] : Array.isArray(value) ? (value.length === 0 ? [null] : value) : [value];
    if (keys.includes(key as string | null)) ids.push(id);
  }
  return ids.sort();
}

const KEYS: IndexKey[] = ['a', 'b', 'c', null];
const tag = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.constant(null), fc.constant(undefined), fc.subarray(['a', 'b', 'c']));
const op = fc.record({ id: fc.constantFrom('d1', 'd2', 'd3', 'd4'), tag, remove: fc.boolean() });

describe('HashIndex', () => {
  it('answers, after any sequence of adds, replacements and removals, the documents holding each key', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const index = new HashIndex('tag');
        const docs = new Map<string, Doc>();
        for (const { id, tag: value, remove } of ops) {
          const before = docs.get(id);
          const after: Doc = value === undefined ? {} : { tag: value };
          if (remove) {
            if (before) index.remove(id, before);
            docs.delete(id);
          } else if (before) {
            index.replace(id, before, after);
            docs.set(id, after);
          } else {
            index.add(id, after);
            docs.set(id, after);
          }
          for (const key of KEYS) expect([...index.lookup([key])].sort()).toEqual(holdersOf(docs, key));
        }
        expect([...index.lookup(['a', 'b'])].sort()).toEqual([...new Set([...holdersOf(docs, 'a'), ...holdersOf(docs, 'b')])].sort());
      }),
    );
  });

  it('answers a key held by one document, and by none once it moves', () => {
    const index = new HashIndex('propertyId');
    index.add('advert-1', { propertyId: 'p1' });
    expect([...index.lookup(['p1'])]).toEqual(['advert-1']);
    index.add('advert-2', { propertyId: 'p1' });
    expect([...index.lookup(['p1'])].sort()).toEqual(['advert-1', 'advert-2']);
    index.replace('advert-1', { propertyId: 'p1' }, { propertyId: 'p2' });
    expect([...index.lookup(['p1'])]).toEqual(['advert-2']);
    index.remove('advert-2', { propertyId: 'p1' });
    expect(index.lookup(['p1']).size).toBe(0);
    expect([...index.lookup(['p2'])]).toEqual(['advert-1']);
  });
});
