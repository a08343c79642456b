import { z } from 'zod';

/**
 * A query parameter described by whoever validates it, for routes whose query is not a zod schema
 * (`/documents/properties` is read by the criteria library, which describes its own parameters).
 */
export interface QueryParameterSpec {
  name: string;
  description: string;
  /** Absent: optional. */
  required?: boolean;
  /** JSON Schema of the value. */
  schema: Record<string, unknown>;
  style?: 'deepObject';
  explode?: boolean;
}

export interface ResponseSpec {
  description: string;
  /** Response headers by name. */
  headers?: Record<string, { description: string; schema?: Record<string, unknown> }>;
}

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Query schema as validated by the gateway; each top-level key becomes a parameter. */
  query?: z.ZodType;
  /** Query parameters listed as given; one named like a `query` key replaces it. All are optional. */
  parameters?: QueryParameterSpec[];
  pathParams?: Record<string, string>;
  body?: { description: string; schema?: z.ZodType; example?: unknown };
  /** By status: the description, or the description with response headers. */
  responses: Record<string, string | ResponseSpec>;
  /** Health routes need no key. */
  public?: boolean;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  let current: unknown = schema;
  // Unwrap refinements and pipes to the object whose keys are the parameters.
  for (let i = 0; i < 5; i++) {
    if (current instanceof z.ZodObject) return current.shape as Record<string, z.ZodType>;
    const def = (current as { _zod?: { def?: { in?: unknown; schema?: unknown; innerType?: unknown } } })._zod?.def;
    current = def?.in ?? def?.innerType ?? def?.schema;
    if (!current) break;
  }
  return {};
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

function responseHeaders(headers: NonNullable<ResponseSpec['headers']>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, header]) => [name, { description: header.description, schema: header.schema ?? { type: 'string' } }]),
  );
}

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['@context', '@type', 'hydra:title', 'hydra:description', 'type', 'title', 'status', 'detail'],
  properties: {
    '@context': { type: 'string', const: '/contexts/Error' },
    '@type': { type: 'string', const: 'hydra:Error' },
    'hydra:title': { type: 'string' },
    'hydra:description': { type: 'string' },
    type: { type: 'string', example: '/errors/400' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    violations: {
      type: 'array',
      items: { type: 'object', properties: { propertyPath: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** OpenAPI 3.1 description of the HTTP API, built from the same schemas that validate requests. */
export function buildOpenApiDocument(operations: OperationSpec[], info: { version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [];
    for (const [name, description] of Object.entries(op.pathParams ?? {})) {
      parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string' } });
    }
    const queryParameters = new Map<string, Record<string, unknown>>();
    if (op.query) {
      for (const [name, schema] of Object.entries(objectShape(op.query))) {
        const json = jsonSchemaOf(schema);
        const isObject = json['type'] === 'object' || json['type'] === 'array';
        queryParameters.set(name, {
          name,
          in: 'query',
          required: !schema.safeParse(undefined).success,
          schema: json,
          ...(isObject ? { style: 'deepObject', explode: true } : {}),
        });
      }
    }
    for (const parameter of op.parameters ?? []) {
      queryParameters.set(parameter.name, {
        name: parameter.name,
        in: 'query',
        required: parameter.required ?? false,
        description: parameter.description,
        schema: parameter.schema,
        ...(parameter.style ? { style: parameter.style } : {}),
        ...(parameter.explode !== undefined ? { explode: parameter.explode } : {}),
      });
    }
    parameters.push(...queryParameters.values());
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(op.responses)) {
      const { description, headers }: ResponseSpec = typeof response === 'string' ? { description: response } : response;
      const content = Number(status) >= 400
        ? { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }
        : { 'application/ld+json': { schema: { type: 'object' } } };
      responses[status] = { description, ...(headers ? { headers: responseHeaders(headers) } : {}), content };
    }
    if (!op.public) responses['401'] ??= { description: 'Missing or unknown X-API-KEY', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    const openApiPath = op.path.replace(/:([a-zA-Z]+)/g, '{$1}');
    paths[openApiPath] ??= {};
    paths[openApiPath][op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      ...(op.public ? { security: [] } : {}),
      parameters,
      ...(op.body
        ? {
            requestBody: {
              required: true,
              description: op.body.description,
              content: {
                'application/json': {
                  ...(op.body.schema ? { schema: jsonSchemaOf(op.body.schema) } : {}),
                  ...(op.body.example !== undefined ? { example: op.body.example } : {}),
                },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property listings search and alerts',
      version: info.version,
      description:
        'Hydra JSON-LD API over French real-estate listings. Query strings use bracket notation ' +
        '(`propertyTypes[]=0`, `order[price]=asc`). Points of interest, transit stations outside the curated ' +
        'Paris network, and demo listings are synthetic (seeded generators), labelled as such.',
    },
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      schemas: { Problem: PROBLEM_SCHEMA },
    },
    paths,
  };
}
