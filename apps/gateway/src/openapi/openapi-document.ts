import { z } from 'zod';
import { JSON_QUERY_PARAMETERS } from '../http/json-query-parameters';
import { JSON_LD_MEDIA_TYPE, JSON_MEDIA_TYPE } from '../http/response-format';
import { IGNORED_PARAMETERS_HEADER } from '../listings/property-pages';
import { COMPONENT_SCHEMAS } from './component-schemas';
import { fromZod, ref, type JsonSchema } from './json-schema';
import { operationIdOf } from './operation-ids';
import { PlainJsonSchemas } from './plain-json-schemas';
import { webhooks } from './webhooks';

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
  schema: JsonSchema;
  style?: 'deepObject';
  explode?: boolean;
}

export interface ParameterSpec {
  description: string;
  schema: JsonSchema;
}

export interface ResponseSpec {
  description: string;
  /** Of the body; absent: no body described (204), or the problem body for an error status. */
  schema?: JsonSchema;
  /**
   * Default: `application/ld+json` and its plain `application/json` form for a JSON-LD resource,
   * `application/json` for other JSON, `application/problem+json` for errors; several when the
   * route serves files.
   */
  contentType?: string | string[];
  /** Response headers particular to the route, by name; `required` when every such answer carries it. */
  headers?: Record<string, { description: string; schema?: JsonSchema; required?: true }>;
  /** Response headers described once in `components.headers`, by name. */
  sharedHeaders?: string[];
  /** False for an answer written past Fastify (a server-sent event stream), which the limiter's headers never reach. */
  rateLimitHeaders?: false;
}

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Query schema as validated by the gateway; each top-level key becomes one or more parameters. */
  query?: z.ZodType;
  /** Descriptions of the parameters derived from `query`, by parameter name as written (`insee[]`, `order[name]`). */
  queryDescriptions?: Record<string, string>;
  /** Query parameters listed as given; one named like a derived one replaces it. */
  parameters?: QueryParameterSpec[];
  pathParams?: Record<string, ParameterSpec>;
  /** Request headers the route reads, beyond the key and the request id. */
  headers?: Record<string, ParameterSpec>;
  /** `contentTypes`: the media types the body may be sent as; `application/json` and `application/ld+json` unless given. */
  body?: { description: string; schema: JsonSchema; example?: unknown; contentTypes?: string[] };
  /** By status: the description, or the whole response. */
  responses: Record<string, string | ResponseSpec>;
  /** Reachable without X-API-KEY (health, docs, the unsubscribe link). */
  public?: boolean;
  /** Needs the admin key. */
  adminOnly?: boolean;
  /** False: the route asks no service, so it never answers 503/504 for one. */
  upstream?: false;
  /** The route picks its own media type (`@OwnMediaType()`): no content negotiation, no 406. */
  ownMediaType?: true;
}

const JSON_CONTENT = JSON_MEDIA_TYPE;
const PROBLEM_CONTENT = 'application/problem+json';
/** What request bodies may be sent as unless an operation says otherwise (`json-bodies.ts`). */
const BODY_CONTENT_TYPES = [JSON_MEDIA_TYPE, JSON_LD_MEDIA_TYPE];

/** Headers and parameters every operation shares, as components. */
const REQUEST_ID_HEADER = 'X-Request-Id';
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'] as const;

const COMPONENT_HEADERS: Record<string, { description: string; schema: JsonSchema; required?: true }> = {
  [REQUEST_ID_HEADER]: {
    description: "The request's id: the one the client sent in `X-Request-Id` when usable, or a new UUID. The logs of every app it reached name it.",
    required: true,
    schema: { type: 'string', examples: ['5d0f8a2c-3b7e-4f1a-9c6d-2e4b8a1f0c93'] },
  },
  'RateLimit-Limit': { description: 'Requests the API key may make per window, on average (when the key is rate limited)', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests the API key may still make at once', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: "Seconds until the key's allowance is whole again", schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Policy': {
    description: 'The policy: `<requests>;w=<window seconds>;burst=<requests at once>`',
    schema: { type: 'string', examples: ['1200;w=60;burst=120'] },
  },
  'Retry-After': { description: 'Seconds to wait before the next request is accepted', required: true, schema: { type: 'integer', minimum: 0 } },
  [IGNORED_PARAMETERS_HEADER]: {
    description:
      'Comma-separated names of the query parameters this endpoint does not read (top-level names, and `order[<key>]` for a ' +
      'field it does not sort by); they were ignored. Absent when every parameter was read.',
    schema: { type: 'string', examples: ['colour, order[rooms]'] },
  },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The error answers a route may give beyond its own, by what it does. */
function standardErrors(op: OperationSpec, hasQuery: boolean): Record<string, ResponseSpec> {
  const errors: Record<string, ResponseSpec> = {};
  if (hasQuery) {
    errors['400'] = { description: 'Invalid query parameters; `violations` names each one as written (`propertyTypes[1]`)' };
    errors['414'] = { description: 'Query string over 64 KiB' };
  }
  if (op.body) {
    errors['400'] ??= { description: 'Invalid body; `violations` names each bad field' };
    errors['413'] = { description: 'Body over the size limit' };
    const types = (op.body.contentTypes ?? BODY_CONTENT_TYPES).map((type) => `\`${type}\``).join(' or ');
    errors['415'] = { description: `Body of a media type the gateway does not read (send ${types})` };
  }
  if (!op.public) {
    errors['401'] = { description: 'Missing, unknown or revoked `X-API-KEY`' };
    if (rateLimited(op)) errors['429'] = { description: 'Too many requests for this API key; retry after `Retry-After` seconds', sharedHeaders: ['Retry-After'] };
    // The key of an account is checked with the searches service.
    errors['503'] = { description: 'A service this request needs (the searches service, which checks account keys) is unavailable' };
  }
  if (op.adminOnly) errors['403'] = { description: 'Not the admin key' };
  if (op.ownMediaType !== true) errors['406'] = { description: '`Accept` admits neither `application/ld+json` nor `application/json`' };
  if (op.upstream !== false) {
    errors['503'] = { description: 'The service answering this route is unavailable (no instance responds)' };
    errors['504'] = { description: 'The service answering this route did not answer in time' };
  }
  return errors;
}

/** Every key is rate limited but the admin key (listings applies its own backpressure to ingestion). */
const rateLimited = (op: OperationSpec) => !op.public && !op.adminOnly;

/** One query parameter per name a client writes: `insee[]` for a list, `order[name]` for an object's key. */
function derivedQueryParameters(schema: z.ZodType, descriptions: Record<string, string>): Record<string, unknown>[] {
  const parameters: Record<string, unknown>[] = [];
  const add = (name: string, json: JsonSchema, required: boolean, extra: Record<string, unknown> = {}) =>
    parameters.push({ name, in: 'query', required, ...(descriptions[name] ? { description: descriptions[name] } : {}), schema: json, ...extra });
  for (const [name, field] of Object.entries(objectShape(schema))) {
    const json = fromZod(field, 'output');
    const required = !field.safeParse(undefined).success;
    const items = json['items'] as JsonSchema | undefined;
    if (json['type'] === 'object' && json['properties']) {
      for (const [key, value] of Object.entries(json['properties'] as Record<string, JsonSchema>)) add(`${name}[${key}]`, value, false);
    } else if (json['type'] === 'array' && items?.['type'] !== 'object') {
      add(`${name}[]`, json, required);
    } else if (json['type'] === 'array') {
      add(name, json, required, { style: 'deepObject', explode: true });
    } else {
      add(name, json, required);
    }
  }
  return parameters;
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

/**
 * A structured parameter (a list of objects or of lists) as one JSON text: client generators
 * cannot send its bracket notation (openapi-fetch refuses deepObject arrays), while every one
 * sends a string. The gateway reads both (`json-query-parameters.ts`).
 */
function asJsonText(parameter: Record<string, unknown>): Record<string, unknown> {
  const { style: _style, explode: _explode, schema, description, ...rest } = parameter;
  const name = String(parameter['name']);
  if (!JSON_QUERY_PARAMETERS.includes(name)) throw new Error(`The structured query parameter ${name} is not read as JSON (JSON_QUERY_PARAMETERS)`);
  const text =
    `The whole value may also be sent as one JSON text of that structure, URL-encoded (\`${name}=<JSON>\`): the form client ` +
    'generators send. Bracket notation is read as well.';
  return {
    ...rest,
    description: description === undefined ? text : `${String(description)} ${text}`,
    schema: { type: 'string', contentMediaType: JSON_CONTENT, contentSchema: schema },
  };
}

/** `default` as words: generators make a field with a default required, which a client then has to send and reads as always present. */
function defaultsInWords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defaultsInWords);
  if (typeof value !== 'object' || value === null) return value;
  const { default: fallback, ...rest } = value as Record<string, unknown>;
  // A map of named schemas (`properties`, the components) may name one `default`: its entries are schemas, it is none.
  const inMap = (key: string, child: unknown) =>
    key === 'properties' && typeof child === 'object' && child !== null
      ? Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, defaultsInWords(schema)]))
      : defaultsInWords(child);
  const converted = Object.fromEntries(Object.entries(rest).map(([key, child]) => [key, inMap(key, child)]));
  if (fallback === undefined) return converted;
  const words = `Default: \`${JSON.stringify(fallback)}\`.`;
  return { ...converted, description: typeof rest['description'] === 'string' ? `${rest['description']} ${words}` : words };
}

function response(status: string, spec: ResponseSpec, limited: boolean, plain: PlainJsonSchemas): Record<string, unknown> {
  const code = Number(status);
  const isError = code >= 400;
  const headers: Record<string, unknown> = { [REQUEST_ID_HEADER]: headerRef(REQUEST_ID_HEADER) };
  // The limiter runs once the key is known: every answer after it carries the headers. A success
  // always went through it, so there they are required (rate limits are on unless an operator
  // turns them off); an error may come before it (the key's service unavailable).
  if (limited && code !== 401 && code !== 403 && spec.rateLimitHeaders !== false) {
    for (const name of RATE_LIMIT_HEADERS) headers[name] = code < 400 ? { ...COMPONENT_HEADERS[name], required: true } : headerRef(name);
  }
  for (const name of spec.sharedHeaders ?? []) {
    if (!COMPONENT_HEADERS[name]) throw new Error(`No shared response header ${name}`);
    headers[name] = headerRef(name);
  }
  for (const [name, header] of Object.entries(spec.headers ?? {})) {
    headers[name] = { description: header.description, ...(header.required ? { required: true } : {}), schema: header.schema ?? { type: 'string' } };
  }
  const schema = spec.schema ?? (isError ? ref('Problem') : undefined);
  if (schema && spec.contentType === undefined && !isError && plain.isJsonLd(schema)) {
    return { description: spec.description, headers, content: { [JSON_LD_MEDIA_TYPE]: { schema }, [JSON_CONTENT]: { schema: plain.of(schema) } } };
  }
  const contentTypes = [spec.contentType ?? (isError && !spec.schema ? PROBLEM_CONTENT : JSON_CONTENT)].flat();
  const content = Object.fromEntries(contentTypes.map((type) => [type, { schema }]));
  return { description: spec.description, headers, ...(schema ? { content } : {}) };
}

function operation(op: OperationSpec, plain: PlainJsonSchemas): Record<string, unknown> {
  const parameters: unknown[] = [{ $ref: '#/components/parameters/RequestId' }];
  for (const [name, spec] of Object.entries(op.pathParams ?? {})) parameters.push({ name, in: 'path', required: true, ...spec });
  for (const [name, spec] of Object.entries(op.headers ?? {})) parameters.push({ name, in: 'header', required: false, ...spec });
  const query = new Map<string, Record<string, unknown>>();
  if (op.query) for (const parameter of derivedQueryParameters(op.query, op.queryDescriptions ?? {})) query.set(String(parameter['name']), parameter);
  for (const parameter of op.parameters ?? []) {
    query.set(parameter.name, {
      name: parameter.name,
      in: 'query',
      required: parameter.required ?? false,
      description: parameter.description,
      schema: parameter.schema,
      ...(parameter.style ? { style: parameter.style } : {}),
      ...(parameter.explode !== undefined ? { explode: parameter.explode } : {}),
    });
  }
  parameters.push(...[...query.values()].map((parameter) => (parameter['style'] === 'deepObject' ? asJsonText(parameter) : parameter)));

  const given = Object.fromEntries(Object.entries(op.responses).map(([status, spec]) => [status, typeof spec === 'string' ? { description: spec } : spec]));
  const all: Record<string, ResponseSpec> = { ...standardErrors(op, query.size > 0) };
  // A route's own description of a status wins; its schema too, else the standard one stays.
  for (const [status, spec] of Object.entries(given)) {
    const sharedHeaders = [...new Set([...(all[status]?.sharedHeaders ?? []), ...(spec.sharedHeaders ?? [])])];
    all[status] = { ...all[status], ...spec, sharedHeaders };
  }
  const responses = Object.fromEntries(
    Object.entries(all)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, spec]) => [status, response(status, spec, rateLimited(op), plain)]),
  );

  return {
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    operationId: operationId(op),
    ...(op.public ? { security: [] } : {}),
    parameters,
    ...(op.body ? { requestBody: requestBody(op.body) } : {}),
    responses,
  };
}

function requestBody(body: NonNullable<OperationSpec['body']>): Record<string, unknown> {
  const media = { schema: body.schema, ...(body.example !== undefined ? { example: body.example } : {}) };
  return { required: true, description: body.description, content: Object.fromEntries((body.contentTypes ?? BODY_CONTENT_TYPES).map((type) => [type, media])) };
}

/** `GET /searches/:id/deliveries` → `getSearchesIdDeliveries`: stable names for client generators. */
const operationId = (op: OperationSpec): string => operationIdOf(op.method, op.path);

export const openApiPath = (path: string) => path.replace(/:([a-zA-Z]+)/g, '{$1}');

export interface ApiDescription {
  operations: OperationSpec[];
  tags: { name: string; description: string }[];
  version: string;
}

/** OpenAPI 3.1 description of the HTTP API, built from the same schemas that validate requests. */
export function buildOpenApiDocument(api: ApiDescription): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  const plain = new PlainJsonSchemas(COMPONENT_SCHEMAS);
  for (const op of api.operations) {
    const path = openApiPath(op.path);
    paths[path] ??= {};
    if (paths[path][op.method]) throw new Error(`${op.method.toUpperCase()} ${path} is described twice`);
    const id = operationId(op);
    if (operationIds.has(id)) throw new Error(`operationId ${id} is not unique`);
    operationIds.add(id);
    paths[path][op.method] = operation(op, plain);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property listings search and alerts',
      version: api.version,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: [
        'Hydra JSON-LD API over French real-estate listings: property documents grouping the adverts of one good, market indicators, ' +
          'city and department lookups, saved searches, and webhooks for new matches and advert events.',
        '**Authentication**: every route needs an `X-API-KEY` header but health, these docs and the unsubscribe link. ' +
          'Missing, unknown or revoked key → 401; an admin route with another key → 403.',
        '**Rate limits**: each API key but the admin key has an allowance (requests per window, in bursts); its answers carry ' +
          '`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`, and past the allowance the answer is 429 ' +
          'with `Retry-After`.',
        '**Request ids**: send `X-Request-Id` to follow a request through the logs; every answer carries one (yours, or a new one).',
        '**Query strings** use bracket notation (`propertyTypes[]=0&propertyTypes[]=1`, `order[price]=asc`, ' +
          '`expressions[0][1][options][includes]=false`), parsed with bounds: nesting depth 5, lists up to 1000 items, 3000 parameters, ' +
          '64 KiB (414 beyond).',
        '**Times** in answers, webhooks and the live stream are Europe/Paris time to the second with the offset in force ' +
          '(`2026-07-01T14:03:00+02:00`, `2026-01-15T09:00:00+01:00` in winter), as the original service writes them. Dates and times in ' +
          'queries accept `Z` or any offset; without one they are Paris time.',
        '**Media types**, as API Platform serves them: resources are `application/ld+json` (Hydra JSON-LD) unless `Accept` prefers ' +
          '`application/json`, which gets the same data without the JSON-LD keys (`@context`, `@id`, `@type`), a collection as the ' +
          'array of its members (no total, no page links: ask for JSON-LD for those). An `Accept` admitting neither is refused with ' +
          '406 (`text/html` too: this page is at `/docs`). Bodies may be sent as `application/json` or `application/ld+json`.',
        '**Errors** are `application/problem+json` in API Platform\'s Hydra shape (`Problem`), with `violations` naming each bad input, whatever `Accept` says.',
        '**Synthetic data**: points of interest, transit stations outside the curated Paris network, and demo listings come from seeded ' +
          'generators and are labelled as such.',
      ].join('\n\n'),
    },
    // Relative: the document is served by the gateway it describes, at whatever address it is reached.
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    tags: api.tags,
    security: [{ apiKey: [] }],
    paths,
    webhooks: webhooks(),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'An account key (`imk_<keyId>_<secret>`), a configured key, or the admin key' } },
      parameters: {
        RequestId: {
          name: REQUEST_ID_HEADER,
          in: 'header',
          required: false,
          description:
            'Your id for this request (printable, at most 128 characters), returned in the `X-Request-Id` response header and written in ' +
            'the logs; a new UUID replaces one that is absent or unusable.',
          schema: { type: 'string' },
        },
      },
      headers: COMPONENT_HEADERS,
      schemas: Object.fromEntries(Object.entries({ ...COMPONENT_SCHEMAS, ...plain.variants }).map(([name, schema]) => [name, defaultsInWords(schema)])),
    },
  };
}
