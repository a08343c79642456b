/**
 * A skeleton is the part of a document the embedded store keeps on the heap: `_id`, `revision`
 * and the values at the collection's declared index paths. Filters and sorts that only read
 * those paths run on skeletons; anything else reads the full document from storage. This is what
 * keeps large collections off the JS heap while equality lookups, revision guards and sorted
 * pages stay in memory.
 */
import { forgetInterned, internString } from '@immo/runtime';
import type { Filter, SortSpec, StoredDocument } from '../document-store.port';
import { isPlainObject, splitPath } from '../document-paths';

export type Skeleton = StoredDocument & Record<string, unknown>;

/**
 * Copies the value at each path into a new object of the same shape. Skeletons live as long as
 * their documents, so their id and string values are interned (see `internString`): the same id
 * in the skeletons of several collections and their indexes is then one string.
 */
export function skeletonOf(doc: StoredDocument, paths: readonly string[]): Skeleton {
  const skeleton: Record<string, unknown> = { _id: internString(doc._id), revision: doc.revision };
  for (const path of paths) pick(doc, splitPath(path), 0, skeleton);
  return skeleton as Skeleton;
}

/** A skeleton decoded from storage, with its id and string values interned as `skeletonOf` does. */
export function internedSkeleton(skeleton: Skeleton): Skeleton {
  skeleton._id = internString(skeleton._id);
  for (const key of Object.keys(skeleton)) if (key !== '_id') skeleton[key] = internedValues(skeleton[key]);
  return skeleton;
}

/**
 * Lets the intern pool drop the strings of a skeleton that its next version (`after`, or null
 * once the document is deleted) no longer holds at the same place, so that the pool does not
 * keep the ids of deleted documents, or values documents moved away from.
 */
export function forgetReplacedStrings(before: unknown, after: unknown): void {
  if (typeof before === 'string') {
    if (before !== after) forgetInterned(before);
  } else if (Array.isArray(before)) {
    before.forEach((value, i) => forgetReplacedStrings(value, Array.isArray(after) ? after[i] : undefined));
  } else if (isPlainObject(before)) {
    for (const key of Object.keys(before)) forgetReplacedStrings(before[key], isPlainObject(after) ? after[key] : undefined);
  }
}

function internedValues(value: unknown): unknown {
  if (typeof value === 'string') return internString(value);
  if (Array.isArray(value)) return value.map(internedValues);
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) value[key] = internedValues(value[key]);
  }
  return value;
}

function pick(source: Record<string, unknown> | StoredDocument, parts: readonly string[], depth: number, target: Record<string, unknown>): void {
  const key = parts[depth] as string;
  if (!Object.prototype.hasOwnProperty.call(source, key)) return;
  const value = (source as Record<string, unknown>)[key];
  const existing = target[key];
  if (existing === value) return; // already copied whole through another path
  if (depth === parts.length - 1 || !isPlainObject(value)) {
    // A leaf, or an array on the way (MongoDB paths fan out through arrays): keep it whole, so
    // every way of reading the path sees the same values as on the full document.
    target[key] = typeof value === 'string' ? internString(value) : value;
    return;
  }
  const child = isPlainObject(existing) ? existing : {};
  target[key] = child;
  pick(value, parts, depth + 1, child);
}

/** An inclusion projection of a skeleton (`_id` and the given covered paths), as a new object. */
export function projectSkeleton(skeleton: Skeleton, paths: readonly string[]): Record<string, unknown> {
  const projected: Record<string, unknown> = { _id: skeleton._id };
  for (const path of paths) if (path !== '_id') pick(skeleton, splitPath(path), 0, projected);
  return projected;
}

/** True when every path is one of `covered` or lies below one of them. */
export function pathsCovered(paths: Iterable<string>, covered: readonly string[]): boolean {
  for (const path of paths) {
    if (path === '_id' || path === 'revision') continue;
    if (!covered.some((c) => path === c || path.startsWith(c + '.'))) return false;
  }
  return true;
}

/**
 * Field paths a filter reads, or null when it reads documents in ways paths cannot describe
 * (`$expr`, `$where`, `$text`...).
 */
export function filterPaths(filter: Filter): string[] | null {
  const paths: string[] = [];
  const visit = (node: Filter): boolean => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$and' || key === '$or' || key === '$nor') {
        if (!Array.isArray(value)) return false;
        for (const branch of value) if (!isPlainObject(branch) || !visit(branch)) return false;
      } else if (key === '$comment') {
        continue;
      } else if (key.startsWith('$')) {
        return false;
      } else {
        paths.push(key);
      }
    }
    return true;
  };
  return visit(filter) ? paths : null;
}

export function sortPaths(sort: SortSpec | undefined): string[] {
  return sort ? Object.keys(sort) : [];
}
