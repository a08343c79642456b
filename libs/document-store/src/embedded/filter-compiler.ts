/**
 * Compiles filters into predicates. mingo evaluates the full MongoDB query language but spends
 * about half a microsecond per condition and document resolving paths generically; over 50k
 * documents that dominates a query. The common conditions (equality, `$ne`, `$in`, `$nin`,
 * ranges and top-level `$exists` on scalar operands, combined with `$and` / `$or`) are compiled
 * here into direct checks with mingo's exact semantics for scalar values. Whenever a document
 * holds something else on the path (an array, an embedded document, a RegExp...), the condition
 * is handed to mingo for that document, and conditions of any other shape always are.
 */
import { Query } from 'mingo';
import type { Filter } from '../document-store.port';
import { isPlainObject, splitPath } from '../document-paths';
import { MINGO_OPTIONS } from './mingo-context';

export type DocumentPredicate = (doc: unknown) => boolean;

type Scalar = string | number | boolean | Date | null | undefined;

/** The value at the path is not a scalar reachable through plain objects: ask mingo. */
const COMPLEX = Symbol('complex');

function isScalarOperand(value: unknown): value is string | number | boolean | Date {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date;
}

function scalarAt(doc: unknown, parts: readonly string[]): Scalar | typeof COMPLEX {
  let value: unknown = doc;
  for (const part of parts) {
    if (value === undefined || value === null) return undefined;
    if (!isPlainObject(value)) return COMPLEX;
    value = value[part];
  }
  if (value === undefined || value === null || value instanceof Date) return value;
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? (value as Scalar) : COMPLEX;
}

/** mingo's `isEqual` restricted to scalars. */
function scalarEquals(a: Scalar, b: string | number | boolean | Date): boolean {
  if (a === b || Object.is(a, b)) return true;
  return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
}

function typeTag(value: string | number | boolean | Date): string {
  return value instanceof Date ? 'date' : typeof value;
}

/** mingo's ordering for two values of the same type (it only compares within one type). */
function scalarCompare(a: string | number | boolean | Date, b: string | number | boolean | Date): number {
  if (scalarEquals(a, b)) return 0;
  return a < b ? -1 : 1;
}

type ScalarTest = (value: Scalar) => boolean;

function equalsTest(operand: unknown): ScalarTest | null {
  if (operand === null) return (v) => v === null || v === undefined;
  if (!isScalarOperand(operand)) return null;
  return (v) => v !== null && v !== undefined && scalarEquals(v, operand);
}

function inTest(operand: unknown): ScalarTest | null {
  if (!Array.isArray(operand)) return null;
  const values: (string | number | boolean | Date)[] = [];
  let hasNull = false;
  for (const value of operand) {
    if (value === null) hasNull = true;
    else if (isScalarOperand(value)) values.push(value);
    else return null;
  }
  const primitives = new Set(values.filter((v) => !(v instanceof Date) && !Number.isNaN(v)));
  const others = values.filter((v) => v instanceof Date || Number.isNaN(v));
  return (v) => {
    if (v === null || v === undefined) return hasNull;
    if (!(v instanceof Date) && primitives.has(v)) return true;
    return others.some((o) => scalarEquals(v, o));
  };
}

function rangeTest(operand: unknown, accept: (c: number) => boolean): ScalarTest | null {
  if (!(typeof operand === 'number' || typeof operand === 'string' || operand instanceof Date)) return null;
  const tag = typeTag(operand);
  return (v) => v !== null && v !== undefined && typeTag(v) === tag && accept(scalarCompare(v, operand));
}

const OPERATOR_TESTS: Record<string, (operand: unknown) => ScalarTest | null> = {
  $eq: equalsTest,
  $ne: (operand) => {
    const eq = equalsTest(operand);
    return eq && ((v) => !eq(v));
  },
  $in: inTest,
  $nin: (operand) => {
    const test = inTest(operand);
    return test && ((v) => !test(v));
  },
  $gt: (operand) => rangeTest(operand, (c) => c > 0),
  $gte: (operand) => rangeTest(operand, (c) => c >= 0),
  $lt: (operand) => rangeTest(operand, (c) => c < 0),
  $lte: (operand) => rangeTest(operand, (c) => c <= 0),
};

function mingoPredicate(filter: Filter): DocumentPredicate {
  const query = new Query(filter, MINGO_OPTIONS);
  return (doc) => query.test(doc);
}

function fieldPredicate(path: string, condition: unknown): DocumentPredicate {
  const viaMingo = (): DocumentPredicate => mingoPredicate({ [path]: condition });
  // `$exists` on a top-level field is the presence of the key, whatever it holds.
  if (isPlainObject(condition) && Object.keys(condition).length === 1 && '$exists' in condition && !path.includes('.')) {
    const wanted = Boolean(condition['$exists']);
    return (doc) => isPlainObject(doc) && (doc[path] !== undefined) === wanted;
  }
  const tests: ScalarTest[] = [];
  const operators = isPlainObject(condition) ? Object.keys(condition) : [];
  if (operators.length > 0 && operators.every((op) => op.startsWith('$'))) {
    for (const op of operators) {
      const test = OPERATOR_TESTS[op]?.((condition as Record<string, unknown>)[op]) ?? null;
      if (!test) return viaMingo();
      tests.push(test);
    }
  } else {
    const test = condition === null || isScalarOperand(condition) ? equalsTest(condition) : null;
    if (!test) return viaMingo();
    tests.push(test);
  }
  const parts = splitPath(path);
  let fallback: DocumentPredicate | null = null;
  return (doc) => {
    const value = scalarAt(doc, parts);
    if (value === COMPLEX) return (fallback ??= viaMingo())(doc);
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/** Compiles a filter; the empty filter compiles to null (every document matches). */
export function compileFilter(filter: Filter): DocumentPredicate | null {
  const clauses: DocumentPredicate[] = [];
  const rest: Filter = {};
  for (const [key, condition] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or') && Array.isArray(condition) && condition.every(isPlainObject)) {
      const subs = condition.map((sub) => compileFilter(sub) ?? (() => true));
      clauses.push(key === '$and' ? (doc) => subs.every((p) => p(doc)) : (doc) => subs.some((p) => p(doc)));
    } else if (key.startsWith('$')) {
      rest[key] = condition;
    } else {
      clauses.push(fieldPredicate(key, condition));
    }
  }
  // Remaining top-level operators ($nor, $expr...) keep mingo's handling, compiled once.
  if (Object.keys(rest).length > 0) clauses.push(mingoPredicate(rest));
  if (clauses.length === 0) return null;
  if (clauses.length === 1) return clauses[0] as DocumentPredicate;
  return (doc) => {
    for (const clause of clauses) if (!clause(doc)) return false;
    return true;
  };
}
