import qs from 'qs';
import { ProblemException } from './problem';

/**
 * Bounds for PHP-style bracket query strings. `depth` covers `expressions[0][1][options][includes]`;
 * `arrayLimit` keeps a 200-point polygon an array (qs turns indices above it into object keys);
 * the parameter and length caps refuse absurd inputs up front instead of parsing them.
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
  try {
    return qs.parse(raw, {
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
