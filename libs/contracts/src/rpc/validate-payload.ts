import type { z } from 'zod';
import { violationsFromZod, type Violation } from './violation';

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

/** Runs a contract schema over untrusted input: both edges (gateway and service) use it. */
export function validatePayload<S extends z.ZodType>(schema: S, input: unknown): ValidationResult<z.output<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, violations: violationsFromZod(parsed.error) };
}
