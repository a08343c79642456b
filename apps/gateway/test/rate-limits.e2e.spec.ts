import type { CreatedAccount } from '@immo/contracts';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';

const LIMIT = { RATE_LIMIT_REQUESTS: '6', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_BURST: '4' };

describe('rate limits per API key', () => {
  let fixture: StackFixture;
  let secondGateway: string;

  beforeAll(async () => {
    fixture = await startStackFixture(LIMIT);
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  const newKey = async () =>
    ((await fixture.send('POST', '/admin/accounts', { name: `limited ${Date.now()}` }, { 'X-API-KEY': fixture.stack.adminApiKey })).body as CreatedAccount).apiKey;
  const call = (base: string, key: string) => fetch(`${base}/departments/75`, { headers: { 'X-API-KEY': key } });

  it('answers the burst with RateLimit headers, then 429 in the problem shape with Retry-After', async () => {
    const key = await newKey();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call(fixture.stack.baseUrl, key));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.slice(0, 4).map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    expect(answers[0]?.headers.get('ratelimit-limit')).toBe('6');
    expect(Number(answers[0]?.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const refused = answers[4] as Response;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ status: 429, detail: expect.stringContaining('retry in') });
  });

  it('gives each key its own budget and never limits health probes or the admin key', async () => {
    const [first, second] = [await newKey(), await newKey()];
    for (let i = 0; i < 4; i++) await call(fixture.stack.baseUrl, first);
    expect((await call(fixture.stack.baseUrl, first)).status).toBe(429);
    expect((await call(fixture.stack.baseUrl, second)).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const health = await fetch(`${fixture.stack.baseUrl}/health/live`);
      expect(health.status).toBe(200);
      expect(health.headers.get('ratelimit-limit')).toBeNull();
      expect((await call(fixture.stack.baseUrl, fixture.stack.adminApiKey)).status).toBe(200);
    }
  });

  it('shares one budget between two gateway replicas (through NATS KV)', async () => {
    const port = await freePort();
    await fixture.stack.startReplica('gateway', 'gateway-2', { PORT: String(port) });
    secondGateway = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await fetch(`${secondGateway}/health/live`).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 100));
    // Each gateway counts the other at its next presence heartbeat (every 3 s).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const key = await newKey();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(i % 2 === 0 ? fixture.stack.baseUrl : secondGateway, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  }, 60_000);
});
