/**
 * Dotted-path traversal with MongoDB's array rules: an array met on the way is traversed element
 * by element (so `photos.url` reaches every photo), and a numeric part may also address one
 * element (`photos.0.url`).
 */

import { isPlainObject } from '@immo/runtime';

const pathCache = new Map<string, readonly string[]>();

export function splitPath(path: string): readonly string[] {
  let parts = pathCache.get(path);
  if (!parts) {
    parts = Object.freeze(path.split('.'));
    // Paths come from code, not data, so the cache stays small; the bound is a safety net.
    if (pathCache.size > 10_000) pathCache.clear();
    pathCache.set(path, parts);
  }
  return parts;
}

// One definition for the workspace; re-exported so the store's modules keep importing it from here.
export { isPlainObject };

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * Calls `visit` with every value found at the path; `undefined` stands for "missing here". The
 * leaf itself is handed over as is, arrays included, so callers decide how to expand it.
 */
export function walkPath(value: unknown, parts: readonly string[], visit: (leaf: unknown) => void, depth = 0): void {
  if (depth === parts.length) {
    visit(value);
    return;
  }
  const part = parts[depth] as string;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      visit(undefined);
      return;
    }
    if (ARRAY_INDEX.test(part)) walkPath(value[Number(part)], parts, visit, depth + 1);
    for (const element of value) {
      if (isPlainObject(element)) walkPath(element[part], parts, visit, depth + 1);
      else visit(undefined);
    }
    return;
  }
  if (isPlainObject(value)) {
    walkPath(value[part], parts, visit, depth + 1);
    return;
  }
  visit(undefined);
}

/** The single value at a path without array traversal (`undefined` when absent). */
export function getPath(value: unknown, parts: readonly string[]): unknown {
  let current = value;
  for (const part of parts) {
    if (Array.isArray(current) && ARRAY_INDEX.test(part)) current = current[Number(part)];
    else if (isPlainObject(current)) current = current[part];
    else return undefined;
  }
  return current;
}
