/**
 * Items of a list parameter, whichever way the caller wrote the list.
 *
 * `a[]=x&a[]=y` and `a[0]=x&a[1]=y` arrive as arrays; `a=x` arrives as a scalar and counts as a
 * one-item list; qs turns sparse or very large indices (`a[5000]=x`) into an object with integer
 * keys, read here in index order. Each item keeps the path the caller wrote, so a violation points
 * at `propertyTypes[2]` rather than at the whole list.
 */
import { isPlainObject } from '@immo/runtime';
import { isBlank, type ValueResult } from './query-values';

export interface ListItem {
  value: unknown;
  path: string;
}

const INDEX = /^(0|[1-9]\d*)$/;

/** Empty items are dropped, like an empty single value (see `isBlank`). */
export function listItems(raw: unknown, path: string): ValueResult<ListItem[]> {
  if (isBlank(raw)) return { ok: true, value: [] };
  if (Array.isArray(raw)) {
    const items = raw.map((value, index) => ({ value, path: `${path}[${index}]` }));
    return { ok: true, value: items.filter((item) => !isBlank(item.value)) };
  }
  if (isPlainObject(raw)) {
    const keys = Object.keys(raw);
    // Integer-like keys enumerate in ascending numeric order, which is the order the caller meant.
    if (!keys.every((key) => INDEX.test(key))) return { ok: false, message: `must be a list, such as ${path}[]=value` };
    const items = keys.map((key) => ({ value: raw[key], path: `${path}[${key}]` }));
    return { ok: true, value: items.filter((item) => !isBlank(item.value)) };
  }
  return { ok: true, value: [{ value: raw, path }] };
}

/** An array or an object: what bracket notation builds; a plain value is not. */
export function isContainer(value: unknown): boolean {
  return Array.isArray(value) || isPlainObject(value);
}

/** Number of items a container holds, without looking at them. */
export function containerSize(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (isPlainObject(value)) return Object.keys(value).length;
  return isBlank(value) ? 0 : 1;
}
