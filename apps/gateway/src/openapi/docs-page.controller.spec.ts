import { gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DOCS_ASSET_NAMES, DOCS_CONTENT_SECURITY_POLICY, DocsPage, swaggerUiDistDirectory } from './docs-page';
import { acceptsGzip } from './static-body';
import { startGatewayWithoutServices } from './test-double/gateway-without-services';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Raw node:http, so that nothing decodes the body or adds headers behind the test's back. */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const linkedFrom = (html: string) => [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);

describe('docs page (the gateway module over an idle NATS)', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    ({ app, baseUrl } = await startGatewayWithoutServices());
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves Swagger UI at /docs without a key, with a strict Content-Security-Policy and no inline script', async () => {
    const answer = await get(baseUrl, '/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['content-security-policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    expect(DOCS_CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(DOCS_CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.headers['etag']).toMatch(/^"[0-9a-f]{16}"$/);
    const html = answer.body.toString('utf8');
    expect(html).toContain('id="swagger-ui" data-openapi-url="/docs/openapi.json"');
    expect(html.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(/src="\/docs\/assets\/swagger-ui-bundle\.js\?v=/), expect.stringMatching(/src="\/docs\/assets\/docs-init\.js\?v=/)]);
    expect(html).not.toMatch(/<script\b[^>]*>[^<\s]/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(linkedFrom(html).every((url) => url.startsWith('/docs/'))).toBe(true);
  });

  it('refuses an API route without a key: the docs are public by their decorator, not for want of a guard', async () => {
    expect((await get(baseUrl, '/')).status).toBe(401);
  });

  it('serves every file the page links to, with its content type, cached for good under its content hash', async () => {
    const html = (await get(baseUrl, '/docs')).body.toString('utf8');
    const types: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', png: 'image/png' };
    const assets = linkedFrom(html).filter((url) => url.startsWith('/docs/assets/'));
    expect(assets).toHaveLength(6);
    for (const url of assets) {
      const answer = await get(baseUrl, url);
      const extension = url.split('?')[0]!.split('.').pop()!;
      expect([url, answer.status, answer.headers['content-type'], answer.headers['cache-control']]).toEqual([url, 200, types[extension], 'public, max-age=31536000, immutable']);
      expect([url, answer.headers['x-content-type-options']]).toEqual([url, 'nosniff']);
      expect(answer.body.length).toBeGreaterThan(0);
    }
  });

  it('serves swagger-ui-dist files as the package holds them, gzipped when the client takes it', async () => {
    const page = new DocsPage(swaggerUiDistDirectory());
    const bundle = page.asset('swagger-ui-bundle.js')!;
    const plain = await get(baseUrl, '/docs/assets/swagger-ui-bundle.js');
    expect(plain.body.equals(bundle.content)).toBe(true);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.headers['vary']).toBe('Accept-Encoding');
    const zipped = await get(baseUrl, '/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.length).toBeLessThan(bundle.content.length / 2);
    expect(gunzipSync(zipped.body).equals(bundle.content)).toBe(true);
    const png = await get(baseUrl, '/docs/assets/favicon-32x32.png', { 'accept-encoding': 'gzip' });
    expect(png.headers['content-encoding']).toBeUndefined();
  });

  it('answers 304 to a request that names the current ETag', async () => {
    const first = await get(baseUrl, '/docs/assets/swagger-ui.css');
    const again = await get(baseUrl, '/docs/assets/swagger-ui.css', { 'if-none-match': String(first.headers['etag']) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const page = await get(baseUrl, '/docs', { 'if-none-match': `W/${String((await get(baseUrl, '/docs')).headers['etag'])}` });
    expect(page.status).toBe(304);
  });

  it('serves only the files it lists (404 problem otherwise, no path out of the package)', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json', '/docs/assets/swagger-initializer.js']) {
      const answer = await get(baseUrl, path);
      expect([path, answer.status, answer.headers['content-type']]).toEqual([path, 404, 'application/problem+json; charset=utf-8']);
    }
    expect(DOCS_ASSET_NAMES).toContain('docs-init.js');
  });

  it('serves the OpenAPI document at /docs/openapi.json and at /docs.json, without a key', async () => {
    const current = await get(baseUrl, '/docs/openapi.json');
    const alias = await get(baseUrl, '/docs.json');
    expect(current.status).toBe(200);
    expect(current.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(alias.body.equals(current.body)).toBe(true);
    const document = JSON.parse(current.body.toString('utf8')) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/docs');
  });

  it('starts Swagger UI from a script file that reads the document address from the page', async () => {
    const script = await get(baseUrl, '/docs/assets/docs-init.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const source = script.body.toString('utf8');
    expect(source).toContain("getAttribute('data-openapi-url')");
    expect(source).toContain('validatorUrl: null');
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['*', true],
    ['gzip;q=0', false],
    ['identity', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
