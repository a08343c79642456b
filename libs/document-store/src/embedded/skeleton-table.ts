import { ShardedMap } from '@immo/runtime';
import { isPlainObject, splitPath } from '../document-paths';
import type { Skeleton } from './skeleton';

/** Where a collection keeps its skeletons, by id (a `ShardedMap` of them fits: see `newSkeletonMap`). */
export interface SkeletonTable {
  readonly size: number;
  get(id: string): Skeleton | undefined;
  has(id: string): boolean;
  set(id: string, skeleton: Skeleton): unknown;
  delete(id: string): boolean;
  keys(): IterableIterator<string>;
  entries(): IterableIterator<[string, Skeleton]>;
  clear(): void;
}

/** The value of a path a skeleton does not have. */
const ABSENT = Symbol('absent');

/**
 * Skeletons kept as columns: the revision by id, and the value at each index path by id, the
 * skeleton object being made when asked for. As one object each (with its nested objects and the
 * property array V8 gives a literal that grows), skeletons were the largest part of listings'
 * heap: at 340,000 properties 1.8 million objects for the collections without index paths, and
 * at 90,000 goods three objects per advert for `listings_adverts` (`{_id, state: {propertyId}}`),
 * all of which V8 marks on every full collection; as columns they are map entries holding an id
 * and a value. A skeleton asked for is made again, one to three short-lived objects: one by one
 * for revision guards, index updates and the candidates of an indexed lookup, and for every
 * document by a full scan and by building an index at start (measured for 220,000 adverts: 0.5 s
 * filling the columns from the loaded skeletons, then 0.1 s making them all again).
 *
 * A skeleton whose shape columns cannot say exactly (a path stopping at an array or another value
 * on the way, or half there) is kept whole, as are all of a collection whose paths nest in one
 * another (see `fitsColumns`).
 */
export class ColumnarSkeletonTable implements SkeletonTable {
  private readonly revisions = new ShardedMap<string, number>();
  private readonly parts: readonly (readonly string[])[];
  /** Per path, the value at the path by id; absent ids have no entry. */
  private readonly columns: ShardedMap<string, unknown>[];
  /** Skeletons of an unusual shape, whole. */
  private readonly whole = new ShardedMap<string, Skeleton>();

  constructor(paths: readonly string[]) {
    if (!fitsColumns(paths)) throw new Error(`skeletons of paths ${paths.join(', ')} do not fit columns`);
    this.parts = paths.map(splitPath);
    this.columns = paths.map(() => new ShardedMap<string, unknown>());
  }

  get size(): number {
    return this.revisions.size;
  }

  get(id: string): Skeleton | undefined {
    const revision = this.revisions.get(id);
    if (revision === undefined) return undefined;
    if (this.whole.size > 0) {
      const kept = this.whole.get(id);
      if (kept !== undefined) return kept;
    }
    const skeleton: Skeleton = { _id: id, revision };
    for (let i = 0; i < this.parts.length; i++) {
      const column = this.columns[i] as ShardedMap<string, unknown>;
      if (column.size === 0) continue;
      const value = column.get(id);
      if (value !== undefined) placeAt(skeleton, this.parts[i] as readonly string[], value);
    }
    return skeleton;
  }

  has(id: string): boolean {
    return this.revisions.has(id);
  }

  /** Keyed by the skeleton's own id: skeletons hold interned ids (see `skeletonOf`). */
  set(_id: string, skeleton: Skeleton): this {
    const id = skeleton._id;
    this.revisions.set(id, skeleton.revision);
    const values = valuesAt(skeleton, this.parts);
    if (values === null) {
      this.whole.set(id, skeleton);
      for (const column of this.columns) column.delete(id);
      return this;
    }
    if (this.whole.size > 0) this.whole.delete(id);
    values.forEach((value, i) => {
      const column = this.columns[i] as ShardedMap<string, unknown>;
      if (value === ABSENT) column.delete(id);
      else column.set(id, value);
    });
    return this;
  }

  delete(id: string): boolean {
    if (!this.revisions.delete(id)) return false;
    this.whole.delete(id);
    for (const column of this.columns) column.delete(id);
    return true;
  }

  keys(): IterableIterator<string> {
    return this.revisions.keys();
  }

  *entries(): IterableIterator<[string, Skeleton]> {
    for (const id of this.revisions.keys()) yield [id, this.get(id) as Skeleton];
  }

  clear(): void {
    this.revisions.clear();
    this.whole.clear();
    for (const column of this.columns) column.clear();
  }
}

/**
 * Whether skeletons of these paths can be kept as columns: none of them is `_id`, `revision` or
 * lies within another (`a` and `a.b`: `skeletonOf` copies `a` whole, and the copy is shared with
 * the document, so placing `a.b` in it again is not a column's business).
 */
export function fitsColumns(paths: readonly string[]): boolean {
  return paths.every((path, i) => {
    if (path === '_id' || path === 'revision' || path.startsWith('_id.') || path.startsWith('revision.')) return false;
    return paths.every((other, j) => i === j || (other !== path && !other.startsWith(path + '.')));
  });
}

/**
 * The value at each path of a skeleton (`ABSENT` when it has none), or null when a path stops on
 * the way: at a value that is not a plain object (`skeletonOf` keeps an array met on the way
 * whole) or at a plain object without the next key.
 */
function valuesAt(skeleton: Skeleton, parts: readonly (readonly string[])[]): unknown[] | null {
  const values: unknown[] = [];
  for (const path of parts) {
    let node: Record<string, unknown> = skeleton;
    let value: unknown = ABSENT;
    for (let depth = 0; depth < path.length; depth++) {
      const key = path[depth] as string;
      if (!Object.prototype.hasOwnProperty.call(node, key)) {
        if (depth > 0) return null;
        break;
      }
      const next = node[key];
      if (depth === path.length - 1) {
        if (next === undefined) return null;
        value = next;
      } else if (isPlainObject(next)) {
        node = next;
      } else {
        return null;
      }
    }
    values.push(value);
  }
  return values;
}

/** Sets `value` at the path, making the plain objects on the way that are not there yet. */
function placeAt(target: Record<string, unknown>, parts: readonly string[], value: unknown): void {
  let node = target;
  for (let depth = 0; depth < parts.length - 1; depth++) {
    const key = parts[depth] as string;
    let next = node[key];
    if (!isPlainObject(next)) {
      next = {};
      node[key] = next;
    }
    node = next as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/**
 * An empty map of skeletons by id. Sharded: a collection's table grows to as many entries as it
 * has documents, and a plain `Map` grows by copying itself whole in one go (see `ShardedMap`).
 */
export function newSkeletonMap(): Map<string, Skeleton> {
  return new ShardedMap<string, Skeleton>();
}

/** The table for skeletons of these paths: columns when they fit, the skeletons themselves otherwise. */
export function skeletonTableFor(paths: readonly string[], skeletons: Map<string, Skeleton>): SkeletonTable {
  if (!fitsColumns(paths)) return skeletons;
  const table = new ColumnarSkeletonTable(paths);
  for (const skeleton of skeletons.values()) table.set(skeleton._id, skeleton);
  return table;
}
