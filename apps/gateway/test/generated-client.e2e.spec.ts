/**
 * A client generated from the served OpenAPI description, as a customer would make one
 * (openapi-typescript for the types, openapi-fetch for the calls), works against the stack: the
 * description passes redocly's recommended rules, the generated types compile with a program
 * calling every GET operation, and every GET operation answers what the description says,
 * structured parameters (polygon, expressions, geoShapes) included.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { z } from 'zod';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';
import { ingestExampleProperty } from './example-property';
import { getCalls, type GetCall, type SeededIds } from './generated-client/get-calls';

type Schema = Record<string, unknown>;
interface ResponseObject {
  headers?: Record<string, { $ref?: string; required?: boolean }>;
  content?: Record<string, { schema?: Schema }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: { schemas: Record<string, Schema>; headers: Record<string, { required?: boolean }> };
}

const BIN = join(ROOT, 'node_modules', '.bin');
const run = (command: string, args: string[], cwd: string) =>
  spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } });

/** A JSON answer a call got, for the typed program to hold against the generated types. */
interface Answer {
  method: 'get' | 'post';
  path: string;
  status: number;
  mediaType: string;
  body: unknown;
}

/**
 * The typed program: each call written out, so the compiler checks its parameters against the
 * generated types, and each real answer given as a value of the type generated for it, so the
 * compiler refuses a field the types call required that an answer lacks (or typed otherwise).
 */
function clientProgram(calls: [string, GetCall][], answers: Answer[]): string {
  const lines = calls.map(([path, call]) => {
    const init = [call.params ? `params: ${JSON.stringify(call.params)}` : '', call.parseAs ? `parseAs: '${call.parseAs}'` : ''].filter(Boolean).join(', ');
    return `  await client.GET(${JSON.stringify(path)}${init ? `, { ${init} }` : ''});`;
  });
  return [
    "import createClient from 'openapi-fetch';",
    "import type { paths } from './api';",
    "const client = createClient<paths, 'application/ld+json'>({ baseUrl: 'http://127.0.0.1:3000', headers: { 'X-API-KEY': 'key' } });",
    'export async function callEveryGetOperation(): Promise<void> {',
    ...lines,
    '}',
    // A typed read: the generated types describe what the answers hold.
    'export async function firstPropertyTitle(): Promise<string | null | undefined> {',
    "  const { data } = await client.GET('/documents/properties', { params: { query: { itemsPerPage: 1 } } });",
    "  return data?.['hydra:member'][0]?.title;",
    '}',
    ...answers.map(
      (answer, index) =>
        `export const answer${index}: paths[${JSON.stringify(answer.path)}]['${answer.method}']['responses'][${answer.status}]['content'][${JSON.stringify(answer.mediaType)}] = ${JSON.stringify(answer.body)};`,
    ),
  ].join('\n');
}

/** A response schema of the document as a zod schema, its references resolved among the components. */
function responseValidator(document: OpenApiDocument, schema: Schema): z.ZodType {
  const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
  const root = JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
  return z.fromJSONSchema({ ...root, $defs: defs } as Parameters<typeof z.fromJSONSchema>[0]);
}

/** The id of the account's first match, once the matcher made it. */
async function eventuallyOneMatch(fixture: StackFixture, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [match] = ((await fixture.get('/matches')).body as { 'hydra:member': { '@id': string }[] })['hydra:member'];
    if (match) return match['@id'].split('/').pop() as string;
    if (Date.now() > deadline) throw new Error(`no match within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a client generated from the served OpenAPI description (openapi-typescript + openapi-fetch)', () => {
  let fixture: StackFixture;
  let document: OpenApiDocument;
  let documentText: string;
  let ids: SeededIds;
  /** Filled by the calls through openapi-fetch, read by the typed program. */
  const answers: Answer[] = [];
  const workDir = mkdtempSync(join(tmpdir(), 'generated-client-'));

  beforeAll(async () => {
    // Rate limits on, as customers meet them (the answers' RateLimit headers are required), far above these calls.
    fixture = await startStackFixture({ RATE_LIMIT_REQUESTS: '100000', RATE_LIMIT_BURST: '10000', PUBLIC_REQUESTS_PER_MINUTE: '100000', PUBLIC_REQUESTS_BURST: '10000' });
    const served = await fetch(`${fixture.stack.baseUrl}/docs/openapi.json`);
    documentText = await served.text();
    document = JSON.parse(documentText) as OpenApiDocument;
    writeFileSync(join(workDir, 'openapi.json'), documentText);

    // Saved before the flat arrives, so that the flat is its match (alerts never back-fill).
    const alerted = await fixture.send('POST', '/searches', { title: 'Alerts in Lyon', transactionType: 0, propertyTypes: [0], includedCities: ['/cities/69123'], notificationEnabled: true });
    expect(alerted.status).toBe(201);
    const propertyId = await ingestExampleProperty(fixture);
    const matchId = await eventuallyOneMatch(fixture);
    const cities = (await fixture.get('/cities?insee=69383')).body as { 'hydra:member': { '@id': string }[] };
    const created = await fixture.send('POST', '/searches', { title: 'Flats in Lyon', transactionType: 0, propertyTypes: [0], includedCities: ['/cities/69123'] });
    expect(created.status).toBe(201);
    const search = created.body as { id: string; token: string };
    // A stored search as a real 201 gives it: the typed program holds it against the generated type.
    answers.push({ method: 'post', path: '/searches', status: 201, mediaType: 'application/ld+json', body: created.body });
    const docsAsset = /assets\/([^"?]+)/.exec((await (await fetch(`${fixture.stack.baseUrl}/docs`)).text()))?.[1] ?? '';
    ids = { propertyId, cityId: Number(cities['hydra:member'][0]!['@id'].split('/').pop()), searchId: search.id, searchToken: search.token, docsAsset, matchId };
  }, 120_000);

  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    await fixture?.teardown();
  });

  it("passes redocly's recommended rules without an error", () => {
    const lint = run(join(BIN, 'redocly'), ['lint', join(workDir, 'openapi.json'), '--format=stylish'], workDir);
    expect({ status: lint.status, errors: lint.stdout.split('\n').filter((line) => /error/i.test(line) && !/0 errors?/.test(line)) }).toEqual({ status: 0, errors: [] });
  }, 60_000);

  it('has a call for every GET operation the document lists', () => {
    const listed = Object.entries(document.paths).filter(([, operations]) => operations['get'] !== undefined).map(([path]) => path);
    const calls = getCalls(ids);
    expect(listed.filter((path) => calls[path] === undefined)).toEqual([]);
    expect(Object.keys(calls).filter((path) => !listed.includes(path))).toEqual([]);
  });

  it('answers every GET operation as the document describes it, through openapi-fetch', async () => {
    const keys = { admin: fixture.stack.adminApiKey, none: undefined, account: fixture.stack.apiKey };
    const failures: string[] = [];
    for (const [path, call] of Object.entries(getCalls(ids))) {
      const key = keys[call.key ?? 'account'];
      const client = createClient<Record<string, Record<string, unknown>>>({ baseUrl: fixture.stack.baseUrl, headers: key ? { 'X-API-KEY': key } : {} });
      const init = { params: call.params ?? {}, parseAs: call.parseAs ?? 'json' } as never;
      try {
        const { data, error, response } = (await client.GET(path as never, init)) as { data?: unknown; error?: unknown; response: Response };
        if (call.parseAs === 'stream') await (data as ReadableStream | undefined)?.cancel();
        if (response.status !== call.status) throw new Error(`status ${response.status}, expected ${call.status}: ${JSON.stringify(error ?? '').slice(0, 300)}`);
        const described = document.paths[path]!['get']!.responses[String(call.status)];
        if (described === undefined) throw new Error(`status ${call.status} is not described`);
        for (const [name, header] of Object.entries(described.headers ?? {})) {
          const required = header.required ?? (header.$ref ? document.components.headers[header.$ref.split('/').pop()!]?.required : false);
          if (required && !response.headers.has(name)) throw new Error(`the required header ${name} is missing`);
        }
        const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
        const content = described.content?.[mediaType];
        if (described.content && content === undefined) throw new Error(`${mediaType} is not among the described media types ${Object.keys(described.content).join(', ')}`);
        const body = call.status >= 400 ? error : data;
        if ((call.parseAs ?? 'json') === 'json' && content?.schema) {
          const checked = responseValidator(document, content.schema).safeParse(body);
          if (!checked.success) throw new Error(`the body does not match the described schema: ${checked.error.message.slice(0, 800)}`);
        }
        if ((call.parseAs ?? 'json') === 'json' && call.status < 300) answers.push({ method: 'get', path, status: call.status, mediaType, body });
        call.check?.(body, response);
        // The plain JSON form, where one is described, as a client accepting only application/json gets it.
        const plain = mediaType === 'application/ld+json' ? described.content?.['application/json']?.schema : undefined;
        if (plain !== undefined) {
          const asJson = (await client.GET(path as never, { ...(init as object), headers: { accept: 'application/json' } } as never)) as { data?: unknown; response: Response };
          if (!(asJson.response.headers.get('content-type') ?? '').startsWith('application/json')) throw new Error(`Accept: application/json got ${asJson.response.headers.get('content-type')}`);
          const checked = responseValidator(document, plain).safeParse(asJson.data);
          if (!checked.success) throw new Error(`the plain JSON body does not match the described schema: ${checked.error.message.slice(0, 800)}`);
          answers.push({ method: 'get', path, status: call.status, mediaType: 'application/json', body: asJson.data });
        }
      } catch (failure) {
        failures.push(`GET ${path}: ${failure instanceof Error ? failure.message : String(failure)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('generates types that compile with a program calling every GET operation and holding every JSON answer', () => {
    expect(answers.length).toBeGreaterThan(20);
    const generated = run(join(BIN, 'openapi-typescript'), [join(workDir, 'openapi.json'), '--output', join(workDir, 'api.d.ts')], workDir);
    expect({ status: generated.status, stderr: generated.status === 0 ? '' : generated.stderr }).toEqual({ status: 0, stderr: '' });
    symlinkSync(join(ROOT, 'node_modules'), join(workDir, 'node_modules'));
    writeFileSync(join(workDir, 'client.ts'), clientProgram(Object.entries(getCalls(ids)), answers));
    const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true, types: [] }, files: ['client.ts'] };
    writeFileSync(join(workDir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const compiled = run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', workDir], workDir);
    expect({ status: compiled.status, output: compiled.stdout }).toEqual({ status: 0, output: '' });
  }, 120_000);
});
