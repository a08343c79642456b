import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { ADVERT_WEBHOOK_KINDS, samplePropertyDocument, webhookPropertyDocument, type EventPayload, type MatchPayload } from '@immo/contracts';
import { EntrypointController } from '../entrypoint/entrypoint.controller';
import { hydraCollection } from '../http/hydra-collection';
import { problemBody } from '../http/problem';
import { COMPONENT_SCHEMAS } from './component-schemas';
import { buildOpenApiDocument, openApiPath } from './openapi-document';
import { API_DESCRIPTION, API_OPERATIONS, SEARCH_EXAMPLE } from './operations';
import { JSON_QUERY_PARAMETERS } from '../http/json-query-parameters';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required: boolean;
  style?: string;
  description?: string;
  schema: Record<string, unknown>;
}
interface Operation {
  description?: string;
  parameters: Parameter[];
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { headers?: Record<string, { $ref?: string; description?: string }>; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

/**
 * The validator is an ES module, which Jest (CommonJS here) cannot load: it runs in a child Node
 * process, the document on its stdin.
 */
function validateWithSeriousme(document: unknown): { valid: boolean; errors?: unknown } {
  const script = [
    "import { Validator } from '@seriousme/openapi-schema-validator';",
    "let input = '';",
    'for await (const chunk of process.stdin) input += chunk;',
    'const validator = new Validator();',
    'process.stdout.write(JSON.stringify(await validator.validate(JSON.parse(input))));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input: JSON.stringify(document), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
}

/** A component schema as a zod schema (refs resolved among the components), to check real values against it. */
function componentSchema(name: string): z.ZodType {
  const defs = JSON.parse(JSON.stringify(COMPONENT_SCHEMAS).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
  return z.fromJSONSchema({ $ref: `#/$defs/${name}`, $defs: defs } as Parameters<typeof z.fromJSONSchema>[0]);
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refsIn(child, found);
    }
  }
  return found;
}

function resolvePointer(document: unknown, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], document);
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(API_DESCRIPTION) as unknown as Document;

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    const result = validateWithSeriousme(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('resolves every $ref it holds', () => {
    const unresolved = [...new Set(refsIn(document))].filter((pointer) => !pointer.startsWith('#/') || resolvePointer(document, pointer) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('says what generators need: a server, no field default (generators make such a field required), request ids always sent', () => {
    expect((document as unknown as { servers: unknown[] }).servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const defaults = JSON.stringify(document.components.schemas).match(/"default":/g) ?? [];
    expect(defaults).toEqual([]);
    const searchInput = document.components.schemas['SearchInput'] as { required: string[]; properties: Record<string, { description?: string }> };
    expect(searchInput.required).not.toContain('sortMode');
    expect(searchInput.properties['notificationEnabled']!.description).toMatch(/Default: `false`/);
    expect((document as unknown as { components: { headers: Record<string, { required?: boolean }> } }).components.headers['X-Request-Id']!.required).toBe(true);
  });

  it('lists ld+json and json for request bodies and JSON-LD answers, and 406 where Accept is negotiated', () => {
    const create = document.paths['/searches']!['post']!;
    expect(Object.keys(create.requestBody!.content).sort()).toEqual(['application/json', 'application/ld+json']);
    expect(Object.keys(create.responses['201']!.content!).sort()).toEqual(['application/json', 'application/ld+json']);
    expect(create.responses['406']).toBeDefined();
    expect(document.paths['/health/live']!['get']!.responses['406']).toBeUndefined();
    expect(Object.keys(document.paths['/admin/read-models/properties/status']!['get']!.responses['200']!.content!)).toEqual(['application/json']);
  });

  it('describes every operation with OpenAPI path templates, once', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/cities', '/cities/{id}', '/indicators/points_of_interest', '/docs', '/docs/openapi.json', '/docs.json']));
    expect(operationsOf(document)).toHaveLength(API_OPERATIONS.length);
    expect(Object.keys(document.paths).filter((path) => path.includes(':'))).toEqual([]);
  });

  it('derives query parameters from the validating schemas, named as clients write them', () => {
    const parameters = document.paths['/indicators/points_of_interest']!['get']!.parameters.filter((p) => p.in === 'query');
    expect(parameters.map((p) => [p.name, p.required])).toEqual([
      ['facilities[]', true],
      ['lat', true],
      ['lon', true],
      ['radius', true],
    ]);
    expect(parameters.find((p) => p.name === 'radius')!.schema).toMatchObject({ type: 'number', exclusiveMinimum: 0, maximum: 10 });
    const cities = document.paths['/cities']!['get']!.parameters;
    expect(cities.find((p) => p.name === 'polygon')).toMatchObject({ required: false, schema: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'array' } } });
    expect(cities.find((p) => p.name === 'page')).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1, default: 1 } });
    expect(cities.find((p) => p.name === 'order[name]')?.schema).toMatchObject({ enum: ['asc', 'desc'] });
    expect(cities.find((p) => p.name === 'excludeGroupedCities')?.schema).toMatchObject({ enum: expect.arrayContaining(['true', 'false']) });
    expect(cities.filter((p) => p.in === 'query' && !p.description).map((p) => p.name)).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('"$schema"');
  });

  it('describes every parameter of the property search with its semantics, and the ignored-parameters header', () => {
    const search = document.paths['/documents/properties']!['get']!;
    const byName = new Map(search.parameters.map((p) => [p.name, p]));
    for (const name of ['propertyTypes[]', 'order[price]', 'expressions', 'budgetMin', 'includedCities[]', 'fromDate', 'withCoherentPrice']) {
      expect(byName.get(name)).toMatchObject({ in: 'query', required: false, description: expect.stringMatching(/\S/) });
    }
    expect(search.parameters.filter((p) => p.in === 'query' && !p.description?.trim()).map((p) => p.name)).toEqual([]);
    expect(byName.get('propertyTypes[]')!.schema).toMatchObject({ type: 'array', items: { type: 'integer', enum: [0, 1, 2, 3, 4, 5, 6] } });
    // Structured parameters as one JSON text, which generated clients can send (they refuse deepObject lists).
    expect(byName.get('expressions')).toMatchObject({ schema: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'array' } } });
    const structured = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).flatMap((operation) => (operation.parameters ?? []).filter((p) => p.in === 'query' && (p.style === 'deepObject' || p.schema?.['contentMediaType'] !== undefined))),
    );
    expect(structured.filter((p) => p.style === 'deepObject')).toEqual([]);
    expect([...new Set(structured.map((p) => p.name))].sort()).toEqual([...JSON_QUERY_PARAMETERS].sort());
    expect(byName.get('budgetMin')!.description).toMatch(/inclusive/);
    expect(search.responses['200']!.headers!['X-Ignored-Parameters']).toEqual({ $ref: '#/components/headers/X-Ignored-Parameters' });
    expect(search.responses['200']!.content!['application/ld+json']!.schema).toMatchObject({ allOf: [{ $ref: '#/components/schemas/HydraCollection' }, expect.anything()] });
    // Accept: application/json gets the members alone, without the JSON-LD keys.
    expect(search.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/PropertyDocument.json' } });
    const plainDocument = document.components.schemas['PropertyDocument.json'] as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(plainDocument.properties).filter((key) => key.startsWith('@'))).toEqual([]);
    expect(plainDocument.required).not.toContain('@id');
    expect(search.description).toMatch(/hydra:totalItems/);
  });

  it('needs the key everywhere but on health, the docs and the unsubscribe link', () => {
    expect(document.components.securitySchemes).toEqual({ apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-KEY' }) });
    const open = operationsOf(document).filter(({ operation }) => operation.security !== undefined);
    expect(open.every(({ operation }) => operation.security!.length === 0)).toBe(true);
    expect(open.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [
        'get /docs',
        'get /docs.json',
        'get /docs/assets/{file}',
        'get /docs/openapi.json',
        'get /health/live',
        'get /health/ready',
        'get /metrics',
        'get /public/location-autocomplete',
        'get /public/search/disable-notifications',
        'post /public/search/disable-notifications',
      ].sort(),
    );
    for (const { operation } of open) expect(operation.responses['401']).toBeUndefined();
  });

  it('answers 401 on every authenticated operation, and 429 with Retry-After and the RateLimit headers where the key is limited', () => {
    const adminOnly = new Set(API_OPERATIONS.filter((op) => op.adminOnly).map((op) => `${op.method} ${openApiPath(op.path)}`));
    expect(adminOnly.size).toBeGreaterThan(0);
    for (const { path, method, operation } of operationsOf(document).filter(({ operation }) => operation.security === undefined)) {
      const where = `${method} ${path}`;
      expect([where, operation.responses['401']?.content?.['application/problem+json']]).toEqual([where, { schema: { $ref: '#/components/schemas/Problem' } }]);
      expect([where, operation.responses['503']]).toEqual([where, expect.anything()]);
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))!;
      if (adminOnly.has(where)) {
        // The admin key is not rate limited.
        expect([where, operation.responses['429'], success[1].headers?.['RateLimit-Remaining']]).toEqual([where, undefined, undefined]);
        expect([where, operation.responses['403']]).toEqual([where, expect.anything()]);
        continue;
      }
      const tooMany = operation.responses['429'];
      expect([where, Object.keys(tooMany?.headers ?? {}).sort()]).toEqual([where, ['RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id']]);
      expect([where, tooMany?.content]).toEqual([where, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }]);
      // A server-sent event stream writes its own headers, past the limiter's.
      const streamed = success[1].content?.['text/event-stream'] !== undefined;
      // Every success went through the limiter: the headers are required there.
      expect([where, success[1].headers?.['RateLimit-Remaining']]).toEqual([where, streamed ? undefined : expect.objectContaining({ required: true, schema: { type: 'integer', minimum: 0 } })]);
      expect([where, operation.responses['401']!.headers?.['RateLimit-Remaining']]).toEqual([where, undefined]);
    }
  });

  it('accepts X-Request-Id on every operation and returns it on every response', () => {
    for (const { path, method, operation } of operationsOf(document)) {
      expect([method, path, operation.parameters[0]]).toEqual([method, path, { $ref: '#/components/parameters/RequestId' }]);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect([method, path, status, response.headers?.['X-Request-Id']]).toEqual([method, path, status, { $ref: '#/components/headers/X-Request-Id' }]);
      }
    }
  });

  it('gives the error statuses where they apply, in the problem shape', () => {
    const statuses = (path: string, method: string) => Object.keys(document.paths[path]![method]!.responses);
    expect(statuses('/admin/adverts', 'post')).toEqual(expect.arrayContaining(['400', '401', '403', '413', '415', '503', '504']));
    expect(statuses('/searches', 'post')).toEqual(expect.arrayContaining(['201', '400', '401', '409', '413', '429', '503']));
    expect(statuses('/searches/{id}', 'get')).toEqual(expect.arrayContaining(['400', '404']));
    expect(statuses('/documents/properties', 'get')).toEqual(expect.arrayContaining(['400', '414']));
    expect(statuses('/public/search/disable-notifications', 'post')).toEqual(expect.arrayContaining(['200', '400', '404', '429', '503']));
    expect(statuses('/docs', 'get')).toEqual(['200', '304']);
    const problem = document.paths['/cities']!['get']!.responses['400']!.content!;
    expect(problem).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(document.paths['/health/ready']!['get']!.responses['503']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/HealthCheck' });
  });

  it('describes request bodies from the contract schemas', () => {
    const body = (path: string, method: string) => document.paths[path]![method]!.requestBody?.content['application/json']?.schema;
    expect(body('/searches', 'post')).toEqual({ $ref: '#/components/schemas/SearchInput' });
    expect(body('/searches/{id}', 'put')).toEqual({ $ref: '#/components/schemas/SearchInput' });
    expect(body('/public/search/disable-notifications', 'post')).toEqual({ $ref: '#/components/schemas/UnsubscribeRequest' });
    expect(JSON.stringify(body('/admin/adverts', 'post'))).toContain('#/components/schemas/AdvertSnapshot');
    const searchInput = COMPONENT_SCHEMAS['SearchInput'] as { required: string[]; properties: Record<string, unknown> };
    expect(searchInput.required).toEqual(['title', 'transactionType', 'propertyTypes']);
    expect(Object.keys(searchInput.properties)).toEqual(expect.arrayContaining(['budgetMin', 'expressions', 'includedCities', 'subscribedEvents', 'eventEndpoint']));
    expect(Object.keys(searchInput.properties)).not.toEqual(expect.arrayContaining(['page']));
    expect(componentSchema('SearchInput').safeParse(SEARCH_EXAMPLE).error?.issues).toBeUndefined();
    expect(componentSchema('SearchInput').safeParse({ ...SEARCH_EXAMPLE, propertyTypes: [9] }).success).toBe(false);
  });

  it('describes PATCH of a search as a JSON merge patch, in either media type, where null resets a field', () => {
    const content = document.paths['/searches/{id}']!['patch']!.requestBody!.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/ld+json', 'application/merge-patch+json']);
    expect(content['application/merge-patch+json']!.schema).toEqual({ $ref: '#/components/schemas/SearchPatch' });
    expect(componentSchema('SearchPatch').safeParse({ notificationEnabled: false, endpointRecipient: null, budgetMax: null }).error?.issues).toBeUndefined();
    expect(componentSchema('SearchPatch').safeParse({ notificationEnabled: 'off' }).success).toBe(false);
  });

  it('says which fields of a stored search are always present, null when unset', () => {
    const search = COMPONENT_SCHEMAS['Search'] as { required: string[] };
    expect(search.required).toEqual(
      expect.arrayContaining(['transactionType', 'propertyTypes', 'withCoherentPrice', 'budgetMax', 'roomMin', 'publisherTypes', 'expressions', 'endpointRecipient', 'includedZipcodesInsee', 'initiatedFromDashboard', 'lastAlertAt']),
    );
    expect(search.required).not.toContain('platformOrigin');
    const property = (name: string) => JSON.stringify((COMPONENT_SCHEMAS['Search'] as { properties: Record<string, unknown> }).properties[name]);
    for (const name of ['budgetMax', 'roomMin', 'lat', 'endpointRecipient', 'lastAlertAt']) expect([name, property(name)]).toEqual([name, expect.stringContaining('"null"')]);
    for (const name of ['title', 'transactionType', 'propertyTypes', 'withCoherentPrice', 'publisherTypes', 'notificationEnabled']) expect([name, property(name)]).toEqual([name, expect.not.stringContaining('"null"')]);
  });

  it('holds the webhooks: the Match payload and one Event payload per kind, signed per Standard Webhooks', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(['match', ...ADVERT_WEBHOOK_KINDS].sort());
    for (const [name, { post }] of Object.entries(document.webhooks)) {
      expect([name, post.parameters.map((p) => [p.name, p.in, p.required])]).toEqual([
        name,
        [
          ['webhook-id', 'header', true],
          ['webhook-timestamp', 'header', true],
          ['webhook-signature', 'header', true],
        ],
      ]);
      const schema = JSON.stringify(post.requestBody!.content['application/json']!.schema);
      expect([name, schema]).toEqual([name, expect.stringContaining(name === 'match' ? 'MatchPayload' : `"const":"${name}"`)]);
    }
  });

  describe('components match what the code sends', () => {
    const document0 = samplePropertyDocument();
    const matchPayload: MatchPayload = {
      '@context': '/contexts/Match',
      '@id': '/matches/7d7a3c52-2b61-4b0c-9e0f-0d4b8f1b9a10',
      '@type': 'Match',
      property: document0['@id'],
      search: '/searches/5f0c1f9e-8a47-4d0b-9a43-3f2d0c1e7b11',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
      propertyDocument: webhookPropertyDocument(document0, false),
    };

    it('PropertyDocument', () => {
      expect(componentSchema('PropertyDocument').safeParse(document0).error?.issues).toBeUndefined();
      const { city: _city, ...withoutCity } = document0;
      expect(componentSchema('PropertyDocument').safeParse(withoutCity).success).toBe(false);
      expect(componentSchema('PropertyDocument').safeParse({ ...document0, price: '289000' }).success).toBe(false);
    });

    it('Match and Event payloads', () => {
      expect(componentSchema('MatchPayload').safeParse(matchPayload).error?.issues).toBeUndefined();
      expect(componentSchema('Match').safeParse({ ...matchPayload, id: '7d7a3c52-2b61-4b0c-9e0f-0d4b8f1b9a10', propertyDocument: null }).error?.issues).toBeUndefined();
      const event: EventPayload = {
        event: 'ad.update.price',
        adEvent: { fieldName: 'price', fieldOldValue: '300000', fieldNewValue: '289000', percentVariation: '-3.67', createdAt: '2026-03-01T10:00:00+00:00' },
        match: matchPayload,
      };
      expect(componentSchema('EventPayload').safeParse(event).error?.issues).toBeUndefined();
    });

    it('Problem, Hydra collection and entry point', () => {
      expect(componentSchema('Problem').safeParse(problemBody(400, 'Invalid query parameters: page', [{ propertyPath: 'page', message: 'must be an integer' }])).error?.issues).toBeUndefined();
      expect(componentSchema('Problem').safeParse(problemBody(503, 'The geo service is unavailable.')).error?.issues).toBeUndefined();
      const collection = hydraCollection({
        context: '/contexts/City',
        path: '/cities',
        query: { page: '2' },
        members: [],
        totalItems: 45,
        page: 2,
        itemsPerPage: 30,
        mappings: [{ variable: 'page', property: null, required: false }],
      });
      expect(componentSchema('HydraCollection').safeParse(collection).error?.issues).toBeUndefined();
      expect(componentSchema('Entrypoint').safeParse(new EntrypointController().entrypoint()).error?.issues).toBeUndefined();
    });
  });
});
