import { z } from 'zod';
import { violationsFromZod, type Violation } from './violation';

// A missing value reads "is required" rather than zod's "expected string, received undefined",
// at both edges, since the message is shown to API clients next to the parameter name.
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
});

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

/** Runs a contract schema over untrusted input: both edges (gateway and service) use it. */
export function validatePayload<S extends z.ZodType>(schema: S, input: unknown): ValidationResult<z.output<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, violations: violationsFromZod(parsed.error) };
}
