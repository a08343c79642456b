import { z } from 'zod';

/** One rejected input: `propertyPath` names the parameter or field as the caller wrote it. */
export interface Violation {
  propertyPath: string;
  message: string;
}

export const violationSchema = z.object({ propertyPath: z.string(), message: z.string() });

/**
 * Path of a zod issue in the caller's notation: `order[price]`, `expressions[0][1][word]`.
 * Bracket notation is what clients send in query strings, so messages point at what they typed.
 */
export function bracketPath(path: ReadonlyArray<PropertyKey>): string {
  const [head, ...rest] = path.map((part) => String(part));
  if (head === undefined) return '';
  return head + rest.map((part) => `[${part}]`).join('');
}

export function violationsFromZod(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): Violation[] {
  return error.issues.map((issue) => ({
    propertyPath: bracketPath([...prefix, ...issue.path]) || '(root)',
    message: issue.message,
  }));
}
