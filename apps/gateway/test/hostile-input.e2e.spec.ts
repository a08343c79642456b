/**
 * Hostile input never reaches a 500: the cases a fuzz once found, then a seeded, bounded fuzz of
 * every operation the served OpenAPI description lists (random and hostile parameter names,
 * values, path ids, bodies and keys), which fails on any 5xx.
 */
import { request } from 'node:http';
import { mulberry32 } from '@immo/runtime';
import { startStackFixture, type StackFixture } from '@immo/stack';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request sent as written: the path and query are not encoded again, the body not re-serialised. */
function raw(baseUrl: string, method: string, pathAndQuery: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: pathAndQuery, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to ${method} ${pathAndQuery}`)));
    req.on('error', reject);
    req.end(body);
  });
}

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('hostile input (whole stack over HTTP)', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    fixture = await startStackFixture();
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  const key = () => ({ 'X-API-KEY': fixture.stack.apiKey });
  const admin = () => ({ 'X-API-KEY': fixture.stack.adminApiKey });

  it('names an unknown parameter whose name a header cannot carry, percent-encoded, instead of failing', async () => {
    for (const [query, named] of [
      ['%F0%9F%98%80=1', '%F0%9F%98%80'],
      ['a%0Ab=1', 'a%0Ab'],
    ] as const) {
      for (const path of ['/documents/properties', '/searches']) {
        const answer = await raw(fixture.stack.baseUrl, 'GET', `${path}?${query}`, key());
        expect({ path, status: answer.status }).toEqual({ path, status: 200 });
        expect(answer.headers['x-ignored-parameters']).toBe(named);
      }
    }
  });

  it('refuses a parameter that would reach an object prototype, naming it', async () => {
    const answer = await raw(fixture.stack.baseUrl, 'GET', '/documents/properties?__proto__[x]=1', key());
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ violations: [{ propertyPath: '__proto__[x]' }] });
  });

  it('refuses a JSON body nested 5,000 deep with a 400 naming (body), on every route that reads a body', async () => {
    for (const [method, path, headers] of [
      ['POST', '/admin/adverts', admin()],
      ['POST', '/searches', key()],
      ['PUT', '/searches/00000000-0000-4000-8000-000000000000', key()],
      ['POST', '/admin/accounts', admin()],
    ] as const) {
      const answer = await raw(fixture.stack.baseUrl, method, path, headers, nestedArrays(5000));
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 400 });
      expect(JSON.parse(answer.body)).toMatchObject({ violations: [{ propertyPath: '(body)' }] });
    }
  });

  it('answers every operation of the OpenAPI description below 500, whatever it is sent (seeded fuzz)', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? 20261128);
    const random = mulberry32(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const document = JSON.parse((await raw(fixture.stack.baseUrl, 'GET', '/docs/openapi.json', {})).body) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses?: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const hostileNames = ['__proto__[x]', 'constructor[prototype][x]', '%F0%9F%98%80', 'a%0Ab', '%E2%80%A8', 'order[', '[]', '%5B%5D', 'x'.repeat(300), 'page%00', 'itemsPerPage[]', 'order[price][]'];
    const hostileValues = ['', '-1', '0', '1e309', 'NaN', 'null', '%00', '%FF', '%', 'true', '[]', "'%20OR%201=1", '9'.repeat(40), 'a'.repeat(2000), '%F0%9F%98%80', '2026-13-45', '/cities/99999', '-0.0', '1,2', '%0D%0Aset-cookie:x'];
    const hostileIds = ['1', 'x', '00000000-0000-4000-8000-000000000000', '%F0%9F%98%80', '..%2F..', 'a'.repeat(300), '%00', '-1', '1e3', 'null'];
    const bodies = [
      '{}',
      '[]',
      'null',
      '"text"',
      '{"title":',
      'not json',
      nestedArrays(3000),
      JSON.stringify({ title: 'x'.repeat(100_000) }),
      JSON.stringify({ title: 1, transactionType: 'a', propertyTypes: {}, notificationEnabled: 'yes', endpointRecipient: 'javascript:alert(1)' }),
      JSON.stringify({ __proto__: { admin: true }, constructor: { prototype: { x: 1 } } }),
      JSON.stringify([{ site: 1, url: [] }]),
      JSON.stringify({ name: '\u0000\ud800' }),
    ];
    const failures: string[] = [];
    let sent = 0;
    for (const [template, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // A live stream stays open by design; a rebuild is a long operation on purpose.
        const streams = Object.values(operation.responses ?? {}).some((response) => Object.keys(response.content ?? {}).includes('text/event-stream'));
        if (streams || template.endsWith('/rebuild')) continue;
        const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
        for (let i = 0; i < 12; i++) {
          const path = template.replace(/\{[^}]+\}/g, () => pick(hostileIds));
          const parameters = Array.from({ length: Math.floor(random() * 5) }, () => {
            const name = random() < 0.5 && declared.length > 0 ? encodeURIComponent(pick(declared)).replace(/%5B/g, '[').replace(/%5D/g, ']') : pick(hostileNames);
            return `${name}=${pick(hostileValues)}`;
          });
          const query = parameters.length > 0 ? `?${parameters.join('&')}` : '';
          const strangers: Record<string, string>[] = [{}, { 'X-API-KEY': 'imk_000000000000_wrong' }, { 'X-API-KEY': 'x'.repeat(500) }];
          const headers: Record<string, string> = random() < 0.85 ? (template.startsWith('/admin') ? admin() : key()) : pick(strangers);
          const body = ['post', 'put', 'patch'].includes(method) ? pick(bodies) : undefined;
          sent++;
          try {
            const answer = await raw(fixture.stack.baseUrl, method.toUpperCase(), `${path}${query}`, headers, body);
            if (answer.status >= 500) failures.push(`${answer.status} ${method.toUpperCase()} ${path}${query} ${body?.slice(0, 60) ?? ''}: ${answer.body.slice(0, 200)}`);
          } catch (error) {
            failures.push(`no answer: ${method.toUpperCase()} ${path}${query}: ${String(error)}`);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(300);
    expect({ seed, failures }).toEqual({ seed, failures: [] });
  }, 300_000);
});
