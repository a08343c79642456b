/**
 * Readers for single query values. A bracket-parsed query string holds strings (and arrays and
 * objects of strings); a saved search stored as JSON holds numbers and booleans. Both are read, so
 * the same parser serves the gateway and the searches service.
 */
import { z } from 'zod';

export type ValueResult<T> = { ok: true; value: T } | { ok: false; message: string };

const NUMERIC_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const BOOLEAN_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false };

// `Number('')` is 0 and `Number('0x10')` is 16: only plain decimal text becomes a number.
const numericTextToNumber = (value: unknown): unknown =>
  typeof value === 'string' && NUMERIC_TEXT.test(value.trim()) ? Number(value.trim()) : value;

const booleanTextToBoolean = (value: unknown): unknown => {
  if (typeof value === 'string') return BOOLEAN_TEXT[value.trim().toLowerCase()] ?? value;
  if (value === 1 || value === 0) return value === 1;
  return value;
};

export const numberValue = z.preprocess(numericTextToNumber, z.number({ error: 'must be a number' }));
export const integerValue = z.preprocess(numericTextToNumber, z.int({ error: 'must be an integer' }));
export const booleanValue = z.preprocess(booleanTextToBoolean, z.boolean({ error: 'must be true or false' }));

/** One of a fixed set of integers (`propertyTypes`, `transactionType`…), given as text or number. */
export function integerEnumValue<const T extends number>(values: readonly T[]) {
  return z.preprocess(numericTextToNumber, z.literal(values, { error: `must be one of ${values.join(', ')}` }));
}

/** One of a fixed set of words; matched case-insensitively, returned as listed. */
export function wordEnumValue<const T extends string>(values: readonly T[]) {
  const byLowerCase = new Map(values.map((value) => [value.toLowerCase(), value] as const));
  return z.preprocess(
    (value) => (typeof value === 'string' ? byLowerCase.get(value.trim().toLowerCase()) ?? value : value),
    z.enum(values as readonly [T, ...T[]], { error: `must be one of ${values.join(', ')}` }),
  );
}

export const textValue = z.preprocess(
  (value) => (typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : value),
  z.string({ error: 'must be a text value' }),
);

/** Runs a value schema and keeps the first message: one parameter, one reason. */
export function readValue<T>(schema: z.ZodType<T>, raw: unknown): ValueResult<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: parsed.error.issues[0]?.message ?? 'is invalid' };
}

/**
 * An empty value counts as "not given": `budgetMin=` is what HTML forms send for an empty field,
 * and JSON clients write `null` for the same thing.
 */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

export function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
