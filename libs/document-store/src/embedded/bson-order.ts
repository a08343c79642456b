/**
 * Sorting with MongoDB's cross-type order (null/missing < numbers < strings < objects < arrays <
 * binary < booleans < dates < regular expressions) and its array rule: an ascending sort uses an
 * array's smallest element, a descending one its largest, and an empty array sorts before null.
 */
import type { SortSpec } from '../document-store.port';
import { isPlainObject, splitPath, walkPath } from '../document-paths';

const EMPTY_ARRAY = Symbol('empty array');

function typeRank(value: unknown): number {
  if (value === EMPTY_ARRAY) return 0;
  if (value === null || value === undefined) return 1;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    default:
      if (Array.isArray(value)) return 5;
      if (value instanceof Date) return 9;
      if (value instanceof RegExp) return 11;
      if (ArrayBuffer.isView(value)) return 6;
      return 4;
  }
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 2: {
      const x = a as number | bigint;
      const y = b as number | bigint;
      // NaN sorts before every other number in MongoDB.
      const xNaN = typeof x === 'number' && Number.isNaN(x);
      const yNaN = typeof y === 'number' && Number.isNaN(y);
      if (xNaN || yNaN) return xNaN === yNaN ? 0 : xNaN ? -1 : 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3:
    case 8:
      return (a as string | boolean) < (b as string | boolean) ? -1 : (a as string | boolean) > (b as string | boolean) ? 1 : 0;
    case 9:
      return compareValues((a as Date).getTime(), (b as Date).getTime());
    case 5:
      return compareSequences(a as unknown[], b as unknown[]);
    case 4:
      return compareObjects(a, b);
    case 6:
      return compareSequences(Array.from(a as ArrayLike<number>), Array.from(b as ArrayLike<number>));
    case 11:
      return compareValues(String(a), String(b));
    default:
      return 0;
  }
}

function compareSequences(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Embedded documents compare field by field: value type, then field name, then value. */
function compareObjects(a: unknown, b: unknown): number {
  const ea = isPlainObject(a) ? Object.entries(a) : [];
  const eb = isPlainObject(b) ? Object.entries(b) : [];
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) {
    const [ka, va] = ea[i] as [string, unknown];
    const [kb, vb] = eb[i] as [string, unknown];
    const byType = typeRank(va) - typeRank(vb);
    if (byType !== 0) return byType;
    if (ka !== kb) return ka < kb ? -1 : 1;
    const byValue = compareValues(va, vb);
    if (byValue !== 0) return byValue;
  }
  return ea.length - eb.length;
}

/** The value a document sorts by for one key and direction. */
export function sortValue(doc: unknown, parts: readonly string[], direction: 1 | -1): unknown {
  const values: unknown[] = [];
  walkPath(doc, parts, (leaf) => {
    if (Array.isArray(leaf)) {
      if (leaf.length === 0) values.push(EMPTY_ARRAY);
      else values.push(...leaf);
    } else values.push(leaf);
  });
  let chosen = values[0];
  for (let i = 1; i < values.length; i++) {
    const c = compareValues(values[i], chosen);
    if (direction === 1 ? c < 0 : c > 0) chosen = values[i];
  }
  return chosen;
}

interface Keyed<T> {
  item: T;
  keys: unknown[];
}

/**
 * Stable sort by precomputed keys. When only the first `keep` items are wanted and that is a
 * small share of the input, a bounded insertion keeps the cost near O(n log keep).
 */
export function sortByKeys<T>(
  items: readonly T[],
  keysOf: (item: T) => unknown[],
  directions: readonly (1 | -1)[],
  keep?: number,
): T[] {
  const compare = (a: Keyed<T>, b: Keyed<T>): number => {
    for (let i = 0; i < directions.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * (directions[i] as number);
    }
    return 0;
  };
  if (keep !== undefined && keep < items.length / 8) {
    const top: Keyed<T>[] = [];
    if (keep <= 0) return [];
    for (const item of items) {
      const entry = { item, keys: keysOf(item) };
      const last = top[top.length - 1];
      if (top.length === keep && last && compare(entry, last) >= 0) continue;
      // Upper bound keeps equal keys in input order, matching the stable full sort.
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compare(entry, top[mid] as Keyed<T>) < 0) hi = mid;
        else lo = mid + 1;
      }
      top.splice(lo, 0, entry);
      if (top.length > keep) top.pop();
    }
    return top.map((e) => e.item);
  }
  return items
    .map((item) => ({ item, keys: keysOf(item) }))
    .sort(compare)
    .map((e) => e.item);
}

/** Sorts documents by a MongoDB sort specification. */
export function sortDocuments<T>(docs: readonly T[], sort: SortSpec, keep?: number): T[] {
  const fields = Object.entries(sort).map(([path, direction]) => ({ parts: splitPath(path), direction }));
  return sortByKeys(
    docs,
    (doc) => fields.map((f) => sortValue(doc, f.parts, f.direction)),
    fields.map((f) => f.direction),
    keep,
  );
}
