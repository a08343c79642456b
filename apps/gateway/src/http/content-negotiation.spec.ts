import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startGatewayWithoutServices, TEST_API_KEY } from '../openapi/test-double/gateway-without-services';

describe('content negotiation (the gateway module over an idle NATS)', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    ({ app, baseUrl } = await startGatewayWithoutServices());
  });

  afterAll(async () => {
    await app?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${baseUrl}${path}`, { headers: { 'X-API-KEY': TEST_API_KEY, ...headers } });
  const post = (path: string, contentType: string, body: string) =>
    fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'X-API-KEY': TEST_API_KEY, 'content-type': contentType }, body });

  it('serves a resource as application/ld+json without Accept, for */* and for application/ld+json, varying on Accept', async () => {
    for (const headers of [{}, { accept: '*/*' }, { accept: 'application/ld+json' }] as Record<string, string>[]) {
      const answer = await get('/', headers);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
      expect(answer.headers.get('vary')).toMatch(/\bAccept\b/);
      expect(await answer.json()).toMatchObject({ '@context': '/contexts/Entrypoint', '@type': 'Entrypoint', search: '/searches' });
    }
  });

  it('serves it as plain JSON, without the JSON-LD keys, for application/json (q-values weighed)', async () => {
    for (const accept of ['application/json', 'application/ld+json;q=0.4, application/json;q=0.9']) {
      const answer = await get('/', { accept });
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = (await answer.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ propertyDocument: '/documents/properties', search: '/searches' });
      expect(Object.keys(body).filter((key) => key.startsWith('@'))).toEqual([]);
    }
  });

  it('answers 406 in the problem shape for an Accept it cannot serve, text/html included', async () => {
    for (const accept of ['application/xml', 'text/html', 'application/ld+json;q=0']) {
      const answer = await get('/', { accept });
      expect(answer.status).toBe(406);
      expect(answer.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await answer.json()).toMatchObject({ '@type': 'hydra:Error', status: 406, type: '/errors/406' });
    }
  });

  it('checks the key first: no key is a 401 whatever is accepted', async () => {
    const answer = await fetch(`${baseUrl}/`, { headers: { accept: 'application/xml' } });
    expect(answer.status).toBe(401);
  });

  it('leaves routes that pick their own media type alone', async () => {
    const live = await get('/health/live', { accept: 'text/html' });
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^application\/json/);
    const docs = await get('/docs', { accept: 'text/html' });
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    const document = await get('/docs/openapi.json', { accept: 'application/vnd.oai.openapi+json' });
    expect(document.status).toBe(200);
  });

  it('reads application/ld+json bodies as JSON, and still refuses other media types (415)', async () => {
    const broken = await post('/searches', 'application/ld+json', '{"title":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ violations: [{ propertyPath: '(body)' }] });
    // Read, validated and sent on: the idle NATS has no searches service to answer.
    const read = await post('/searches', 'application/ld+json; charset=utf-8', JSON.stringify({ title: 'x', transactionType: 0, propertyTypes: [0] }));
    expect(read.status).toBe(503);
    const xml = await post('/searches', 'application/xml', '<search/>');
    expect(xml.status).toBe(415);
  });
});
