import type { CreatedAccount } from '@immo/contracts';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';

const LIMIT = {
  RATE_LIMIT_REQUESTS: '6',
  RATE_LIMIT_WINDOW_MS: '60000',
  RATE_LIMIT_BURST: '4',
  AUTH_FAILURES_PER_MINUTE: '30',
  PUBLIC_REQUESTS_PER_MINUTE: '5',
  PUBLIC_REQUESTS_BURST: '3',
  TRUST_PROXY: '127.0.0.1',
};

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

  it('answers the 31st wrong key from one address within a minute 429, not another address, and reads the address through a trusted proxy', async () => {
    const guess = (address: string, key: string) => fetch(`${fixture.stack.baseUrl}/departments/75`, { headers: { 'X-API-KEY': key, 'X-Forwarded-For': address } });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await guess('203.0.113.7', `imk_${String(i).padStart(12, '0')}_guess`)).status);
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    const refused = await guess('203.0.113.7', 'imk_000000000031_guess');
    expect(statuses[30]).toBe(429);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ status: 429, detail: expect.stringContaining('failed authentications') });
    // Even a valid key waits, from that address; other addresses are not concerned.
    expect((await guess('203.0.113.7', await newKey())).status).toBe(429);
    expect((await guess('198.51.100.9', 'imk_000000000000_guess')).status).toBe(401);
    expect((await guess('198.51.100.9', await newKey())).status).toBe(200);
  });

  it('answers the location autocomplete without a key, limited per client address (bursts of 3 here), not per gateway-wide', async () => {
    const suggest = (address: string) => fetch(`${fixture.stack.baseUrl}/public/location-autocomplete?q=lyo`, { headers: { 'X-Forwarded-For': address } });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await suggest('203.0.113.50'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(((await answers[0]?.json()) as { 'hydra:member': { name?: string }[] })['hydra:member'].length).toBeGreaterThan(0);
    expect(answers[0]?.headers.get('ratelimit-limit')).toBe('5');
    expect(Number(answers[3]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await answers[3]?.json()).toMatchObject({ status: 429, detail: expect.stringContaining('public routes') });
    expect((await suggest('198.51.100.77')).status).toBe(200);
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
    // The first gateway counts the second as soon as its presence key lands (before it is live),
    // not at its own next heartbeat: no grace period in which each grants a budget of its own.
    const key = await newKey();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(i % 2 === 0 ? fixture.stack.baseUrl : secondGateway, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  }, 60_000);

  it('counts the failed authentications of one address across both gateways', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const base = i % 2 === 0 ? fixture.stack.baseUrl : secondGateway;
      statuses.push((await fetch(`${base}/departments/75`, { headers: { 'X-API-KEY': `imk_${String(i).padStart(12, '0')}_other`, 'X-Forwarded-For': '192.0.2.44' } })).status);
    }
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});
