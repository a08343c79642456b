import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';

type Health = { status: string; details: Record<string, { status: string; message?: string; stores?: Record<string, string> }> };

describe('foundation end to end (whole stack over HTTP)', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    fixture = await startStackFixture();
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('runs nats-server with a system account: its log holds no undeliverable-advisory warnings', async () => {
    // JetStream work first (a stream, a consumer, KV): what made the server warn before.
    expect((await fixture.get('/searches')).status).toBe(200);
    const log = readFileSync(join(fixture.logDir, 'nats-server.log'), 'utf8');
    expect(log).toContain('Server is ready');
    expect(log).not.toMatch(/Advisory could not be sent/);
  });

  it('is live without a key', async () => {
    const response = await fixture.get('/health/live', {});
    expect(response).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('is ready, listing NATS and each of the four services with their stores', async () => {
    const response = await fixture.get('/health/ready', {});
    expect(response.status).toBe(200);
    const details = (response.body as Health).details;
    expect(Object.keys(details).sort()).toEqual(['accepting-work', 'geo', 'listings', 'nats', 'notifier', 'searches']);
    for (const service of ['geo', 'listings', 'notifier', 'searches']) {
      expect(details[service]?.status).toBe('up');
      expect(details[service]?.stores?.['nats']).toBe('up');
    }
  });

  it('answers 401 in the problem shape without a valid X-API-KEY', async () => {
    const attempts: Record<string, string>[] = [{}, { 'X-API-KEY': 'wrong' }];
    for (const headers of attempts) {
      const response = await fixture.get('/', headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({
        '@context': '/contexts/Error',
        '@type': 'hydra:Error',
        'hydra:title': 'An error occurred',
        type: '/errors/401',
        title: 'An error occurred',
        status: 401,
      });
    }
  });

  it('serves the entry point with the generated key', async () => {
    const response = await fixture.get('/');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ '@type': 'Entrypoint', propertyDocument: '/documents/properties' });
  });

  it('answers unknown routes with a 404 problem', async () => {
    const response = await fixture.get('/no/such/route');
    expect(response).toMatchObject({ status: 404, body: { '@type': 'hydra:Error', status: 404 } });
  });

  it('turns 503 naming the service whose process was stopped', async () => {
    await fixture.stack.stopApp('notifier');
    const response = await fixture.get('/health/ready', {});
    expect(response.status).toBe(503);
    const details = (response.body as Health).details;
    expect(details['notifier']).toMatchObject({ status: 'down', message: 'no instance is answering' });
    expect(details['geo']?.status).toBe('up');
  });

  it('answers an API call with a 503 problem naming the service when no instance of it runs', async () => {
    await fixture.stack.stopApp('geo');
    const response = await fixture.get('/cities?insee=69123');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ '@type': 'hydra:Error', status: 503, detail: 'The geo service is unavailable.' });
  });
});

describe('service start-up failures', () => {
  const runService = (env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number | null; output: string; ms: number }>((resolve) => {
      const started = Date.now();
      const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', 'geo', 'src', 'main.js')], {
        env: { ...process.env, ...env },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output, ms: Date.now() - started });
      });
    });

  it('fails within seconds naming NATS and the URL when NATS is unreachable', async () => {
    const result = await runService({ NATS_URL: 'nats://127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.output).toContain('Cannot connect to NATS at nats://127.0.0.1:1');
    expect(result.ms).toBeLessThan(10_000);
  });

  it('stops with one message naming a bad variable', async () => {
    const result = await runService({ EVENT_STORE: 'cassandra' });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/Invalid configuration for geo: EVENT_STORE/);
  });
});
