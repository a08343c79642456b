import 'reflect-metadata';
import { Agent, request } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { announceBody, malformedJson, sendWithBody } from '../http/test-double/send-with-body';
import { startGatewayWithoutServices, TEST_API_KEY } from '../openapi/test-double/gateway-without-services';
import { REFUSED_BODY_DRAIN_MS } from './authenticate-before-body';

const ADMIN_KEY = 'admin-key-for-admission-tests-0123';
const MiB = 1024 * 1024;

/**
 * The gateway as `main.ts` assembles it, over a NATS nobody answers on: what is refused here is
 * refused before any service could be asked, and before the body is read.
 */
describe('the key is checked before the body is read (gateway without services)', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    ({ app, baseUrl } = await startGatewayWithoutServices({ ADMIN_API_KEY: ADMIN_KEY }));
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers 401 to a 4 MB malformed body without a key or with a wrong one, never 400 or 413', async () => {
    for (const headers of [{}, { 'X-API-KEY': 'wrong' }] as Record<string, string>[]) {
      const answer = await sendWithBody(baseUrl, 'POST', '/searches', headers, malformedJson(4 * MiB));
      expect(answer.status).toBe(401);
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(answer.body)).toMatchObject({ '@type': 'hydra:Error', status: 401, detail: 'A valid API key is required in the X-API-KEY header.' });
    }
  });

  it('answers a client that announced a body and sends almost nothing of it, then cuts the connection after the drain time', async () => {
    const started = performance.now();
    const answer = await announceBody(baseUrl, 'POST', '/searches', {}, 4 * MiB, '{"title":', REFUSED_BODY_DRAIN_MS + 2000);
    const elapsed = performance.now() - started;
    expect(answer).toMatchObject({ status: 401, closed: true });
    expect(elapsed).toBeGreaterThanOrEqual(REFUSED_BODY_DRAIN_MS - 50);
    expect(elapsed).toBeLessThan(REFUSED_BODY_DRAIN_MS + 1000);
  });

  it('keeps the connection of a refused request whose body came whole alive past the drain time', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body?: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = request(`${baseUrl}/searches`, { method: body === undefined ? 'GET' : 'POST', agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      expect(await send('{"title":')).toEqual({ status: 401, reused: false });
      await new Promise((resolve) => setTimeout(resolve, REFUSED_BODY_DRAIN_MS + 300));
      expect(await send()).toEqual({ status: 401, reused: true });
      await new Promise((resolve) => setTimeout(resolve, REFUSED_BODY_DRAIN_MS + 300));
      expect(await send()).toEqual({ status: 401, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('answers 413 naming the limit to a valid key sending 100 KiB to /searches (64 KiB), before parsing it (not 400)', async () => {
    const answer = await sendWithBody(baseUrl, 'POST', '/searches', { 'X-API-KEY': TEST_API_KEY }, malformedJson(100 * 1024));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, detail: 'The request body is too large: this operation takes at most 64 KiB (65536 bytes).' });
    const update = await sendWithBody(baseUrl, 'PUT', '/searches/00000000-0000-4000-8000-000000000000', { 'X-API-KEY': TEST_API_KEY }, malformedJson(100 * 1024));
    expect(update.status).toBe(413);
  });

  it('reads a search body up to its limit (a malformed one is then a 400 naming the body)', async () => {
    const answer = await sendWithBody(baseUrl, 'POST', '/searches', { 'X-API-KEY': TEST_API_KEY }, malformedJson(60 * 1024));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ violations: [{ propertyPath: '(body)' }] });
  });

  it('answers 403 to a key that is not the admin one sending a 4 MB body to ingestion, and reads up to 5 MiB for the admin key', async () => {
    const refused = await sendWithBody(baseUrl, 'POST', '/admin/adverts', { 'X-API-KEY': TEST_API_KEY }, malformedJson(4 * MiB));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 403, detail: 'This operation needs the admin API key.' });
    // Read and parsed: a malformed body is the client's 400, not a 413.
    const admin = await sendWithBody(baseUrl, 'POST', '/admin/adverts', { 'X-API-KEY': ADMIN_KEY }, malformedJson(4 * MiB));
    expect(admin.status).toBe(400);
    // One byte more is refused as announced, before it is sent, and the connection is not read further.
    const tooLarge = await announceBody(baseUrl, 'POST', '/admin/adverts', { 'X-API-KEY': ADMIN_KEY }, 5 * MiB + 1, '[');
    expect(tooLarge).toMatchObject({ status: 413, closed: true });
    expect(JSON.parse(tooLarge.body)).toMatchObject({ detail: expect.stringContaining('at most 5 MiB') });
  });

  it('keeps other routes to a small body: 16 KiB for an account name, the unsubscribe link, and unknown paths', async () => {
    expect((await sendWithBody(baseUrl, 'POST', '/admin/accounts', { 'X-API-KEY': ADMIN_KEY }, malformedJson(20 * 1024))).status).toBe(413);
    const unsubscribe = await sendWithBody(baseUrl, 'POST', '/public/search/disable-notifications', {}, malformedJson(20 * 1024));
    expect(unsubscribe.status).toBe(413);
    expect(JSON.parse(unsubscribe.body)).toMatchObject({ detail: expect.stringContaining('at most 16 KiB') });
    expect((await sendWithBody(baseUrl, 'POST', '/no/such/route', { 'X-API-KEY': TEST_API_KEY }, malformedJson(20 * 1024))).status).toBe(413);
  });

  it('lets public routes through without a key, and refuses paths no route serves without one', async () => {
    const unsubscribe = await sendWithBody(baseUrl, 'POST', '/public/search/disable-notifications', {}, '{"searchToken":');
    expect(unsubscribe.status).toBe(400);
    expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/docs/openapi.json`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/no/such/route`)).status).toBe(401);
    expect((await fetch(`${baseUrl}/no/such/route`, { headers: { 'X-API-KEY': TEST_API_KEY } })).status).toBe(404);
  });

  it('answers CORS preflights without a key, and gives a refusal the CORS headers a browser needs to read it', async () => {
    const preflight = await fetch(`${baseUrl}/searches`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const refused = await fetch(`${baseUrl}/searches`, { headers: { Origin: 'https://app.example' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(refused.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });
});
