import type { Violation } from '@immo/contracts';
import { ProblemException } from './problem';

/**
 * The structured query parameters (lists of objects or of lists) that may also be written as one
 * JSON text, `expressions=[[{"word":"jardin"}]]`, beside their bracket notation
 * (`expressions[0][0][word]=jardin`). Client generators cannot send the bracket notation of such
 * values (openapi-fetch refuses them), so the OpenAPI description gives them in this form.
 */
export const JSON_QUERY_PARAMETERS: readonly string[] = ['polygon', 'expressions', 'geoShapes', /* the original's other name for `expressions` */ 'expression'];

/**
 * A decoded JSON value as bracket notation would have given it: strings at the leaves (`2.35`,
 * `false`), so the readers of these parameters see one shape whichever way it was written; a
 * JSON null is an empty value. Deeper than the bracket notation may go, or a list longer: a violation.
 */
function asBracketValue(value: unknown, path: string, depth: number, limits: StructureLimits): unknown {
  if (value === null) return '';
  if (typeof value !== 'object') return String(value);
  if (depth > limits.depth) throw invalid(path, `must not nest more than ${limits.depth} levels deep`);
  if (Array.isArray(value)) {
    if (value.length > limits.arrayLimit) throw invalid(path, `must have at most ${limits.arrayLimit} items`);
    return value.map((item, index) => asBracketValue(item, `${path}[${index}]`, depth + 1, limits));
  }
  const object: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    // The keys bracket notation refuses by name are refused here too (a JSON object may hold `__proto__`).
    if (key in Object.prototype) throw invalid(`${path}[${key}]`, 'is not a key this API accepts');
    object[key] = asBracketValue(child, `${path}[${key}]`, depth + 1, limits);
  }
  return object;
}

function invalid(propertyPath: string, message: string): ProblemException {
  const violations: Violation[] = [{ propertyPath, message }];
  return ProblemException.badRequest(`Invalid query parameters: ${propertyPath}`, violations);
}

/** How deep and long bracket notation may go (`QUERY_LIMITS`). */
export interface StructureLimits {
  depth: number;
  arrayLimit: number;
}

/** Replaces each structured parameter written as JSON (`[` first) by the value its bracket notation gives. */
export function decodeJsonParameters(query: Record<string, unknown>, limits: StructureLimits): void {
  for (const name of JSON_QUERY_PARAMETERS) {
    const value = query[name];
    if (typeof value !== 'string' || !value.trimStart().startsWith('[')) continue;
    let decoded: unknown;
    try {
      decoded = JSON.parse(value);
    } catch (error) {
      throw invalid(name, `must be JSON or bracket notation: ${error instanceof Error ? error.message : String(error)}`);
    }
    query[name] = asBracketValue(decoded, name, 1, limits);
  }
}
