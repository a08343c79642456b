import { Query } from 'mingo';
import { mulberry32 } from '@immo/runtime';
import type { Filter } from '../document-store.port';
import { compileFilter } from './filter-compiler';
import { MINGO_OPTIONS } from './mingo-context';


const DATE_A = new Date('2024-01-01T00:00:00Z');
const DATE_B = new Date('2024-06-01T00:00:00Z');
const SCALARS: unknown[] = [0, 1, 5, -3, 2.5, 'x', 'y', '', '5', true, false, null, DATE_A, DATE_B];

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)] as T;
}

function value(next: () => number, depth = 0): unknown {
  const r = next();
  if (r < 0.55 || depth > 1) return pick(next, SCALARS);
  if (r < 0.7) return [pick(next, SCALARS), pick(next, SCALARS)];
  if (r < 0.8) return [];
  if (r < 0.9) return { c: value(next, depth + 1) };
  return [{ c: value(next, depth + 1) }, { other: 1 }];
}

function doc(next: () => number, i: number): Record<string, unknown> {
  const d: Record<string, unknown> = { _id: String(i), revision: 1 };
  for (const field of ['a', 'b', 'd']) {
    if (next() < 0.85) d[field] = value(next);
  }
  if (next() < 0.5) d['b'] = { c: value(next, 1) };
  return d;
}

const PATHS = ['a', 'b', 'b.c', 'd', 'missing', 'a.c'];

function condition(next: () => number): unknown {
  const operand = pick(next, SCALARS);
  switch (Math.floor(next() * 11)) {
    case 0:
      return operand;
    case 1:
      return { $eq: operand };
    case 2:
      return { $ne: operand };
    case 3:
      return { $in: [pick(next, SCALARS), pick(next, SCALARS)] };
    case 4:
      return { $nin: [pick(next, SCALARS), pick(next, SCALARS)] };
    case 5:
      return { $gt: operand };
    case 6:
      return { $gte: operand, $lt: pick(next, SCALARS) };
    case 7:
      return { $lte: operand };
    case 8:
      return { $exists: next() < 0.5 };
    case 9:
      return { $size: 2 };
    default:
      return { $lt: operand };
  }
}

function filter(next: () => number, depth = 0): Filter {
  const f: Filter = {};
  const n = 1 + Math.floor(next() * 2);
  for (let i = 0; i < n; i++) f[pick(next, PATHS)] = condition(next);
  if (depth === 0 && next() < 0.3) f['$or'] = [filter(next, 1), filter(next, 1)];
  if (depth === 0 && next() < 0.2) f['$and'] = [filter(next, 1)];
  return f;
}

describe('compileFilter', () => {
  it('answers exactly what mingo answers', () => {
    const next = mulberry32(20240601);
    const docs = Array.from({ length: 150 }, (_, i) => doc(next, i));
    let checked = 0;
    for (let i = 0; i < 600; i++) {
      const f = filter(next);
      const compiled = compileFilter(f);
      const query = new Query(f, MINGO_OPTIONS);
      for (const d of docs) {
        const expected = query.test(d);
        const actual = compiled ? compiled(d) : true;
        if (actual !== expected) {
          throw new Error(`mismatch for filter ${JSON.stringify(f)} on ${JSON.stringify(d)}: ${actual} vs ${expected}`);
        }
        checked++;
      }
    }
    expect(checked).toBe(600 * 150);
  });

  it('compiles the empty filter to null and keeps mingo errors', () => {
    expect(compileFilter({})).toBeNull();
    expect(() => compileFilter({ a: { $unknown: 1 } })).toThrow(/\$unknown/);
  });

  it('handles nested $and / $or and top-level $nor', () => {
    const test = compileFilter({ $or: [{ a: 1 }, { $and: [{ b: 'x' }, { c: { $gt: 2 } }] }], $nor: [{ d: true }] });
    expect(test).not.toBeNull();
    if (!test) return;
    expect(test({ a: 1 })).toBe(true);
    expect(test({ a: 1, d: true })).toBe(false);
    expect(test({ b: 'x', c: 3 })).toBe(true);
    expect(test({ b: 'x', c: 1 })).toBe(false);
  });
});
