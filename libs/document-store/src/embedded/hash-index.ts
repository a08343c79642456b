/**
 * In-memory indexes of the embedded store. A hash index maps each value found at a path to the
 * ids of the documents holding it; arrays contribute every element (multikey) and a missing
 * value is indexed as null, which is what `{ field: null }` matches. An index only narrows the
 * candidates: the full filter is still evaluated on each of them, so an index may safely answer
 * a superset but never miss a match.
 */
import { ShardedMap } from '@immo/runtime';
import { isPlainObject, splitPath, walkPath } from '../document-paths';

export type IndexKey = string | number | boolean | bigint | null;

// Dates are keyed by time; the prefix keeps them apart from strings (a collision would only add
// a false candidate, which the filter then rejects).
const DATE_PREFIX = '\u0000date:';

/** Hash key of a query or stored scalar; undefined when the value cannot be hash-indexed. */
export function indexKeyOf(value: unknown): IndexKey | undefined {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return value;
    default:
      return value instanceof Date ? DATE_PREFIX + String(value.getTime()) : undefined;
  }
}

function addLeafKeys(leaf: unknown, out: Set<IndexKey>): void {
  if (Array.isArray(leaf)) {
    if (leaf.length === 0) out.add(null);
    for (const element of leaf) addLeafKeys(element, out);
    return;
  }
  const key = indexKeyOf(leaf);
  if (key !== undefined) out.add(key);
}

export function collectIndexKeys(doc: unknown, parts: readonly string[]): Set<IndexKey> {
  const keys = new Set<IndexKey>();
  walkPath(doc, parts, (leaf) => addLeafKeys(leaf, keys));
  if (keys.size === 0) keys.add(null);
  return keys;
}

/**
 * The documents holding one key: the id itself while there is one (the common case of an index
 * on a reference, such as an advert's property), a set from the second on. A set per key cost
 * two objects and a hash table each: at 100,000 properties, 15 MB and 200,000 objects the
 * collector walked on every full collection.
 */
type Holders = string | Set<string>;

export class HashIndex {
  /** Sharded: an index on ids grows as large as its collection (see `ShardedMap`). */
  private readonly entries = new ShardedMap<IndexKey, Holders>();
  private readonly parts: readonly string[];

  constructor(readonly path: string) {
    this.parts = splitPath(path);
  }

  add(id: string, doc: unknown): void {
    for (const key of collectIndexKeys(doc, this.parts)) this.addKey(id, key);
  }

  remove(id: string, doc: unknown): void {
    for (const key of collectIndexKeys(doc, this.parts)) this.removeKey(id, key);
  }

  /**
   * A document replaced by a new version: only the keys that changed move. Removing and adding
   * every key on each update would delete and recreate the set of a key that stayed (a new set
   * per update, and a deleted entry left in the map's hash table).
   */
  replace(id: string, before: unknown, after: unknown): void {
    const previous = collectIndexKeys(before, this.parts);
    const next = collectIndexKeys(after, this.parts);
    for (const key of previous) if (!next.has(key)) this.removeKey(id, key);
    for (const key of next) if (!previous.has(key)) this.addKey(id, key);
  }

  private addKey(id: string, key: IndexKey): void {
    const holders = this.entries.get(key);
    if (holders === undefined) this.entries.set(key, id);
    else if (typeof holders !== 'string') holders.add(id);
    else if (holders !== id) this.entries.set(key, new Set([holders, id]));
  }

  private removeKey(id: string, key: IndexKey): void {
    const holders = this.entries.get(key);
    if (holders === undefined) return;
    if (typeof holders === 'string') {
      if (holders === id) this.entries.delete(key);
      return;
    }
    holders.delete(id);
    // Back to the single id (an overwrite: the entry stays where it is).
    if (holders.size === 1) this.entries.set(key, holders.values().next().value as string);
    else if (holders.size === 0) this.entries.delete(key);
  }

  /** Ids holding any of the keys. The set may be the index's own: read it, never change it. */
  lookup(keys: readonly IndexKey[]): ReadonlySet<string> {
    if (keys.length === 1) return asSet(this.entries.get(keys[0] as IndexKey));
    const union = new Set<string>();
    for (const key of keys) {
      for (const id of asSet(this.entries.get(key))) union.add(id);
    }
    return union;
  }

  clear(): void {
    this.entries.clear();
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function asSet(holders: Holders | undefined): ReadonlySet<string> {
  if (holders === undefined) return EMPTY;
  return typeof holders === 'string' ? new Set([holders]) : holders;
}

function taggedKey(key: IndexKey): string {
  if (key === null) return 'z';
  return `${(typeof key)[0] as string}${String(key)}`;
}

/**
 * Unique constraint over one or more fields. Like MongoDB, a missing field counts as null (so
 * two documents without the field collide) and each array element is a key of its own.
 */
export class UniqueIndex {
  private readonly owners = new ShardedMap<string, string>();
  private readonly fieldParts: (readonly string[])[];

  constructor(
    readonly name: string,
    paths: readonly string[],
  ) {
    this.fieldParts = paths.map((path) => splitPath(path));
  }

  private keysOf(doc: unknown): { composite: string; values: IndexKey[] }[] {
    let tuples: IndexKey[][] = [[]];
    for (const parts of this.fieldParts) {
      const next: IndexKey[][] = [];
      for (const key of collectIndexKeys(doc, parts)) {
        for (const tuple of tuples) next.push([...tuple, key]);
      }
      tuples = next;
    }
    return tuples.map((values) => ({ composite: JSON.stringify(values.map(taggedKey)), values }));
  }

  /** The first key that another document already holds, if any. */
  conflict(id: string, doc: unknown): { key: Record<string, IndexKey>; ownerId: string } | null {
    for (const { composite, values } of this.keysOf(doc)) {
      const owner = this.owners.get(composite);
      if (owner !== undefined && owner !== id) {
        const key: Record<string, IndexKey> = {};
        this.fieldParts.forEach((parts, i) => {
          key[parts.join('.')] = values[i] ?? null;
        });
        return { key, ownerId: owner };
      }
    }
    return null;
  }

  add(id: string, doc: unknown): void {
    for (const { composite } of this.keysOf(doc)) this.owners.set(composite, id);
  }

  remove(id: string, doc: unknown): void {
    for (const { composite } of this.keysOf(doc)) {
      if (this.owners.get(composite) === id) this.owners.delete(composite);
    }
  }

  /** A document replaced by a new version: only the keys that changed move (see `HashIndex.replace`). */
  replace(id: string, before: unknown, after: unknown): void {
    const next = new Set(this.keysOf(after).map(({ composite }) => composite));
    for (const { composite } of this.keysOf(before)) {
      if (!next.has(composite) && this.owners.get(composite) === id) this.owners.delete(composite);
    }
    for (const composite of next) this.owners.set(composite, id);
  }

  clear(): void {
    this.owners.clear();
  }
}

/** Keys an equality-like condition can be answered from: `v`, `{ $eq: v }`, `{ $in: [...] }`. */
export function equalityKeys(condition: unknown): IndexKey[] | null {
  if (isPlainObject(condition)) {
    const operators = Object.keys(condition);
    if (operators.length === 0 || !operators.every((op) => op.startsWith('$'))) return null;
    if ('$eq' in condition) {
      const key = indexKeyOf(condition['$eq']);
      return key === undefined ? null : [key];
    }
    const values = condition['$in'];
    if (!Array.isArray(values)) return null;
    const keys: IndexKey[] = [];
    for (const value of values) {
      const key = indexKeyOf(value);
      if (key === undefined) return null;
      keys.push(key);
    }
    return keys;
  }
  const key = indexKeyOf(condition);
  return key === undefined ? null : [key];
}
