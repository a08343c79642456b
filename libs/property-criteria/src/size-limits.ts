/**
 * Refuses absurd sizes before any value is read (see limits.ts): only containers are counted here,
 * so a query of a million points costs a count, not a million coordinate checks.
 */
import { type Violation } from '@immo/contracts';
import { isPlainObject } from '@immo/runtime';
import { MAX_ARRAY_ITEMS, MAX_EXPRESSION_WORDS, MAX_SHAPE_POINTS } from './limits';
import { containerSize } from './list-items';

// The deepest structure read is expressions[g][i][options][includes]; nothing deeper is ever read.
const MAX_DEPTH = 4;

export function sizeViolations(query: Record<string, unknown>, readNames: ReadonlySet<string>): Violation[] {
  const violations: Violation[] = [];
  // Totals first: they are the cheapest counts and make the walk below pointless when exceeded.
  if (readNames.has('geoShapes')) {
    const points = sumOfSizes(query['geoShapes']);
    if (points > MAX_SHAPE_POINTS) {
      violations.push({ propertyPath: 'geoShapes', message: `must have at most ${MAX_SHAPE_POINTS} points in total (${points} given)` });
    }
  }
  for (const name of ['expressions', 'expression']) {
    if (!readNames.has(name)) continue;
    const words = sumOfSizes(query[name]);
    if (words > MAX_EXPRESSION_WORDS) {
      violations.push({ propertyPath: name, message: `must have at most ${MAX_EXPRESSION_WORDS} words in total (${words} given)` });
    }
  }
  if (violations.length > 0) return violations;
  for (const [name, value] of Object.entries(query)) {
    if (!readNames.has(name)) continue;
    const oversized = firstOversizedContainer(value, name, 0);
    if (oversized !== undefined) violations.push({ propertyPath: oversized, message: `must have at most ${MAX_ARRAY_ITEMS} items` });
  }
  return violations;
}

function firstOversizedContainer(value: unknown, path: string, depth: number): string | undefined {
  if (containerSize(value) > MAX_ARRAY_ITEMS) return path;
  if (depth >= MAX_DEPTH) return undefined;
  const children: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((child, index) => [String(index), child])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];
  for (const [key, child] of children) {
    const found = firstOversizedContainer(child, `${path}[${key}]`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Items of the second level: points over all shapes, words over all expression groups. */
function sumOfSizes(value: unknown): number {
  if (!Array.isArray(value) && !isPlainObject(value)) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce<number>((total, child) => total + containerSize(child), 0);
}
