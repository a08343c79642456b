import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEO_SUBJECTS, LISTINGS_SUBJECTS } from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';

type LogLine = Record<string, unknown>;

/** The JSON lines an app wrote to its log file so far (anything else it wrote is skipped). */
function logLines(fixture: StackFixture, app: string): LogLine[] {
  return readFileSync(join(fixture.logDir, `${app}.log`), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function eventually<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`not seen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The body of the first 200 answer, polling while the process starts. */
async function textOnceServed(url: string, timeoutMs: number): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const answer = await fetch(url).catch(() => null);
    if (answer?.status === 200) return answer.text();
    if (Date.now() > until) throw new Error(`${url} never answered 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('observability end to end (whole stack, one log file per app)', () => {
  let fixture: StackFixture;
  const replicaDir = mkdtempSync(join(tmpdir(), 'listings-metrics-'));

  beforeAll(async () => {
    // At debug level each service writes one line per NATS request it handles.
    fixture = await startStackFixture({ LOG_LEVEL: 'debug' });
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
    rmSync(replicaDir, { recursive: true, force: true });
  });

  it('writes JSON lines, and one request id in the gateway’s and the listings service’s lines for one request', async () => {
    const requestId = `e2e-${Date.now()}`;
    const response = await fixture.get('/documents/properties?itemsPerPage=1', { 'X-API-KEY': fixture.stack.apiKey, 'X-Request-Id': requestId });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(requestId);

    const access = await eventually(() => logLines(fixture, 'gateway').find((line) => line['requestId'] === requestId && line['context'] === 'HTTP'));
    expect(access).toMatchObject({ level: 'info', name: 'gateway', method: 'GET', route: '/documents/properties', status: 200 });
    const handled = await eventually(() => logLines(fixture, 'listings').find((line) => line['requestId'] === requestId));
    expect(handled).toMatchObject({ name: 'listings', context: 'NATS', subject: LISTINGS_SUBJECTS.listProperties, outcome: 'ok' });

    // Written to files, not a terminal: JSON, one object per line, from every app.
    for (const app of ['gateway', 'listings', 'geo', 'searches', 'notifier']) {
      const lines = readFileSync(join(fixture.logDir, `${app}.log`), 'utf8').split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
      expect(lines.map((line) => (JSON.parse(line) as LogLine)['name'])).toEqual(lines.map(() => app));
    }
  });

  it('follows an ingestion’s request id from the gateway through listings (which passes it explicitly) to geo', async () => {
    const requestId = `e2e-ingest-${Date.now()}`;
    const example = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
    delete example['$comment'];
    // A commune by postal code and a name no one asked for before: listings has to ask geo.
    const commune = { zipcode: '69003', name: `Lyon-${requestId}` };
    const response = await fixture.send('POST', '/admin/adverts', [{ ...example, reference: requestId, url: `https://synthetic-portal-a.example/${requestId}`, commune }], {
      'X-API-KEY': fixture.stack.adminApiKey,
      'X-Request-Id': requestId,
    });
    expect(response).toMatchObject({ status: 200, body: { accepted: 1 } });

    const handled = await eventually(() => logLines(fixture, 'listings').find((line) => line['requestId'] === requestId));
    expect(handled).toMatchObject({ context: 'NATS', subject: LISTINGS_SUBJECTS.ingestAdverts, outcome: 'ok' });
    const asked = await eventually(() => logLines(fixture, 'geo').find((line) => line['requestId'] === requestId));
    expect(asked).toMatchObject({ context: 'NATS', subject: GEO_SUBJECTS.cityByZipcodeAndName });
  });

  it('generates an id when none is sent, and never writes the API key to any log', async () => {
    const response = await fixture.get('/documents/properties?itemsPerPage=1');
    const requestId = response.headers.get('x-request-id') ?? '';
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(() => logLines(fixture, 'listings').find((line) => line['requestId'] === requestId));
    for (const app of ['gateway', 'listings', 'geo', 'searches', 'notifier']) {
      const text = readFileSync(join(fixture.logDir, `${app}.log`), 'utf8');
      expect(text).not.toContain(fixture.stack.apiKey);
      expect(text).not.toContain(fixture.stack.adminApiKey);
    }
  });

  it('serves the gateway’s /metrics without a key: requests by route pattern, NATS requests, process metrics', async () => {
    const response = await fetch(`${fixture.stack.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/documents\/properties",status_code="200"\} \d+$/m);
    expect(text).toMatch(new RegExp(`^nats_request_duration_seconds_count\\{subject="${LISTINGS_SUBJECTS.listProperties}",outcome="ok"\\} \\d+$`, 'm'));
    expect(text).toContain('# TYPE nodejs_eventloop_lag_p99_seconds gauge');
    expect(text).not.toContain('route="/metrics"');
  });

  it('serves a service’s /metrics on its health port: process metrics and the listings numbers', async () => {
    const port = await freePort();
    await fixture.stack.startReplica('listings', 'listings-metrics', { DATA_DIR: replicaDir, HEALTH_PORT: String(port) });
    const text = await textOnceServed(`http://127.0.0.1:${port}/metrics`, 60_000);
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nats_request_duration_seconds']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/^projection_lag_positions\{projection="listings"\} \d+$/m);
    expect(text).toContain('listings_ingested_snapshots_total{outcome="changed"}');
    expect(text).toMatch(/^outbox_pending_messages\{outbox="listings_integration"\} \d+$/m);
  }, 90_000);
});
