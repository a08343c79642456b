import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { validatePayload } from '@immo/contracts';
import { nameIgnoredParameters } from './ignored-parameters';
import { ProblemException } from './problem';

/**
 * Zod builders for query-string values, which always arrive as strings (or arrays and objects of
 * strings from bracket notation). Each rejects with a message that names what was expected.
 */
function bounded(schema: z.ZodNumber, options: { min?: number; max?: number }): z.ZodNumber {
  let result = schema;
  if (options.min !== undefined) result = result.min(options.min, `must be at least ${options.min}`);
  if (options.max !== undefined) result = result.max(options.max, `must be at most ${options.max}`);
  return result;
}

export const queryParam = {
  int(options: { min?: number; max?: number } = {}) {
    return z.string().regex(/^-?\d+$/, 'must be an integer').transform(Number).pipe(bounded(z.number().int(), options));
  },
  number(options: { min?: number; max?: number } = {}) {
    return z
      .string()
      .regex(/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i, 'must be a number')
      .transform(Number)
      .pipe(bounded(z.number().finite(), options));
  },
  boolean() {
    return z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((v) => v === 'true' || v === '1');
  },
  /** `true`, `false` or `null` (or empty): null means "no filter". */
  nullableBoolean() {
    return z
      .enum(['true', 'false', '1', '0', 'null', ''], { message: 'must be true, false or null' })
      .transform((v) => (v === 'null' || v === '' ? null : v === 'true' || v === '1'));
  },
  order() {
    return z.enum(['asc', 'desc'], { message: 'must be asc or desc' });
  },
  /** Accepts `x=1` and `x[]=1&x[]=2` alike; at most `max` items. */
  array<T extends z.ZodType>(item: T, max = 200) {
    return z.preprocess(
      (value) => (Array.isArray(value) ? value : value === undefined ? value : [value]),
      z.array(item).max(max, `must have at most ${max} items`),
    );
  },
};

export function pageParams(options: { defaultItemsPerPage: number; maxItemsPerPage: number }) {
  return {
    page: queryParam.int({ min: 1, max: 100000 }).default(1),
    itemsPerPage: queryParam.int({ min: 1, max: options.maxItemsPerPage }).default(options.defaultItemsPerPage),
  };
}

/** Validates a parsed query against a schema, answering 400 with one violation per bad parameter. */
export function validateQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = validatePayload(schema, query);
  if (!result.ok) {
    throw ProblemException.badRequest(
      `Invalid query parameters: ${result.violations.map((v) => v.propertyPath).join(', ')}`,
      result.violations,
    );
  }
  return result.value;
}

/**
 * {@link validateQuery} for a route that ignores parameters it does not know, as API Platform does:
 * they are left out of validation and named in the answer's `X-Ignored-Parameters`.
 */
export function validateKnownQuery<S extends z.ZodObject>(schema: S, query: Record<string, unknown>, reply: FastifyReply): z.output<S> {
  const known = new Set(Object.keys(schema.shape));
  nameIgnoredParameters(reply, Object.keys(query).filter((name) => !known.has(name)));
  return validateQuery(schema, Object.fromEntries(Object.entries(query).filter(([name]) => known.has(name))));
}

export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = validatePayload(schema, body);
  if (!result.ok) {
    throw ProblemException.badRequest(
      `Invalid request body: ${result.violations.map((v) => v.propertyPath).join(', ')}`,
      result.violations,
    );
  }
  return result.value;
}
