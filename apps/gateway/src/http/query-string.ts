import qs from 'qs';
import { decodeJsonParameters } from './json-query-parameters';
import { ProblemException } from './problem';

/**
 * Bounds for PHP-style bracket query strings. `depth` covers `expressions[0][1][options][includes]`;
 * `arrayLimit` is the most items an array may have, whichever notation builds it (`a[]=`, `a[0]=`,
 * repeated `a=`), and keeps a 200-point polygon an array (qs turns indices above it into object
 * keys); the parameter and length caps refuse absurd inputs up front instead of parsing them.
 */
export const QUERY_LIMITS = {
  maxLength: 64 * 1024,
  depth: 5,
  arrayLimit: 1000,
  parameterLimit: 3000,
} as const;

export type ParsedQuery = Record<string, unknown>;

export function parseQueryString(raw: string): ParsedQuery {
  if (raw.length > QUERY_LIMITS.maxLength) {
    throw new ProblemException(414, `The query string is longer than ${QUERY_LIMITS.maxLength} characters.`);
  }
  const repeated = keyRepeatedBeyondArrayLimit(raw);
  if (repeated !== undefined) throw arrayLimitProblem(repeated);
  const unsafe = prototypeKeyIn(raw);
  if (unsafe !== undefined) {
    // qs drops them (they would reach an object's prototype): refused by name rather than dropped unsaid.
    const message = 'is not a parameter name this API accepts';
    throw new ProblemException(400, `Invalid query parameters: ${unsafe}`, [{ propertyPath: unsafe, message }]);
  }
  let parsed: ParsedQuery;
  try {
    parsed = qs.parse(raw, {
      depth: QUERY_LIMITS.depth,
      strictDepth: true,
      arrayLimit: QUERY_LIMITS.arrayLimit,
      parameterLimit: QUERY_LIMITS.parameterLimit,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      plainObjects: true,
      ignoreQueryPrefix: true,
    }) as ParsedQuery;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProblemException(400, `The query string cannot be parsed: ${reason}`, [{ propertyPath: '(query)', message: reason }]);
  }
  decodeJsonParameters(parsed, QUERY_LIMITS);
  assertArrayLimit(parsed, '', 0);
  return parsed;
}

function arrayLimitProblem(parameter: string): ProblemException {
  const message = `must have at most ${QUERY_LIMITS.arrayLimit} items`;
  return new ProblemException(400, `The query string cannot be parsed: ${parameter} ${message}.`, [{ propertyPath: parameter, message }]);
}

/**
 * qs enforces `arrayLimit` only per notation: it counts the repeats of one literal key (`a[]=`, or
 * `a=`) and throws without naming it, while `a[0]=`…`a[1000]=`, or `a[]=` mixed with `a=`, build
 * longer arrays unchecked. So the repeats are counted here first, to name the parameter, and the
 * parsed result is checked whatever notation built it.
 */
function keyRepeatedBeyondArrayLimit(raw: string): string | undefined {
  // Keys are read as qs reads them: brackets may be percent-encoded, `+` is a space.
  const query = (raw.startsWith('?') ? raw.slice(1) : raw).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  const counts = new Map<string, number>();
  for (const part of query.split('&', QUERY_LIMITS.parameterLimit + 1)) {
    const bracketEquals = part.indexOf(']=');
    const end = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decodeKey(end === -1 ? part : part.slice(0, end));
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count > QUERY_LIMITS.arrayLimit) return key.endsWith('[]') ? key.slice(0, -2) : key;
  }
  return undefined;
}

/** Names qs drops because they would reach an object's prototype (`__proto__[x]`, `constructor`, `a[hasOwnProperty]`…). */
function prototypeKeyIn(raw: string): string | undefined {
  const query = (raw.startsWith('?') ? raw.slice(1) : raw).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  for (const part of query.split('&', QUERY_LIMITS.parameterLimit + 1)) {
    const equals = part.indexOf('=');
    const key = decodeKey(equals === -1 ? part : part.slice(0, equals));
    const segments = key.split(/[[\]]+/).filter((segment) => segment !== '');
    if (segments.some((segment) => segment in Object.prototype)) return key;
  }
  return undefined;
}

function decodeKey(key: string): string {
  const spaced = key.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * Every array of the parsed query holds at most `arrayLimit` items. qs turns an index above the
 * limit into an object key (and a mix of such keys with smaller indices into an object too), so
 * a numeric key below the top level is an array index as well and obeys the same bound.
 */
function assertArrayLimit(value: unknown, path: string, depth: number): void {
  if (Array.isArray(value)) {
    if (value.length > QUERY_LIMITS.arrayLimit) throw arrayLimitProblem(path);
    value.forEach((item, index) => assertArrayLimit(item, `${path}[${index}]`, depth + 1));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    if (depth > 0 && ARRAY_INDEX.test(key) && Number(key) >= QUERY_LIMITS.arrayLimit) throw arrayLimitProblem(path);
    assertArrayLimit(child, depth === 0 ? key : `${path}[${key}]`, depth + 1);
  }
}

/** The query part of a raw request URL, without the `?`. */
export function rawQueryOf(url: string): string {
  const index = url.indexOf('?');
  return index === -1 ? '' : url.slice(index + 1);
}

/** Serialises a parsed query back to bracket notation; used for Hydra view links. */
export function stringifyQuery(query: ParsedQuery): string {
  return qs.stringify(query, { encodeValuesOnly: true, arrayFormat: 'indices' });
}
