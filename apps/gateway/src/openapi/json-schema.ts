import { z } from 'zod';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

/**
 * One schema per property of `T`: the compiler refuses a missing or an extra one, so a field added
 * to a contract type fails the type check until the OpenAPI document describes it.
 */
export type Described<T> = { [K in keyof T]-?: JsonSchema };

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `schema` or null (OpenAPI 3.1 has no `nullable`: null is a type). */
export function nullable(schema: JsonSchema): JsonSchema {
  const type = schema['type'];
  if (typeof type === 'string' && schema['enum'] === undefined && schema['const'] === undefined) return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

export function objectSchema<T>(
  properties: Described<T>,
  options: { optional?: readonly (keyof T & string)[]; description?: string; additionalProperties?: boolean } = {},
): JsonSchema {
  const optional = new Set<string>(options.optional ?? []);
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    required: Object.keys(properties).filter((name) => !optional.has(name)),
    properties,
    ...(options.additionalProperties === false ? { additionalProperties: false } : {}),
  };
}

export const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });

/** JSON-LD identifiers every resource carries. */
export const jsonLd = (context: string, type: string, idExample: string): Record<'@context' | '@id' | '@type', JsonSchema> => ({
  '@context': { type: 'string', const: context },
  '@id': { type: 'string', description: 'IRI of the resource', examples: [idExample] },
  '@type': { type: 'string', const: type },
});

/** A time as answers, webhooks and the live stream write it (`parisTimestamp`). */
export const DATE_TIME: JsonSchema = {
  type: 'string',
  format: 'date-time',
  description: 'Europe/Paris time to the second with the offset in force: `+01:00` in winter, `+02:00` in summer',
  examples: ['2026-07-01T14:03:00+02:00'],
};
export const UUID: JsonSchema = { type: 'string', format: 'uuid' };

/**
 * The JSON Schema of a zod schema, as the OpenAPI document embeds it. `io: 'output'` describes
 * what validation yields (a query value's number with its bounds); values only representable on
 * the input side (a transform) fall back to what the client sends (`true|false|1|0`).
 */
export function fromZod(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const convert = (side: 'input' | 'output') => {
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: side, unrepresentable: 'any' }) as JsonSchema;
    return json;
  };
  if (io === 'input') return convert('input');
  const output = convert('output');
  return Object.keys(output).filter((key) => key !== 'default').length > 0 ? output : convert('input');
}
