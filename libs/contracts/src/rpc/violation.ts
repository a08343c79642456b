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

/** What an unknown field or parameter is told: the violation's path names it. */
export const UNKNOWN_NAME_MESSAGE = 'is not a known field or parameter here (misspelt?)';

/**
 * One violation per issue; an object's unknown keys get one each, named by their own path (a
 * misspelt `itemsPerPag` is told as `itemsPerPag`, not as the object around it).
 */
export function violationsFromZod(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): Violation[] {
  return error.issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ propertyPath: bracketPath([...path, key]), message: UNKNOWN_NAME_MESSAGE }));
    return [{ propertyPath: bracketPath(path) || '(root)', message: issue.message }];
  });
}
