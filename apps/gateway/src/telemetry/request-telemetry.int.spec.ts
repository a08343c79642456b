import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Logger, Module, type DynamicModule } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { JSONCodec, type MsgHdrs, type NatsConnection } from 'nats';
import { GEO_SUBJECTS, LISTINGS_SUBJECTS } from '@immo/contracts';
import {
  configureLogging,
  connectNats,
  gatewayConfigSchema,
  loadConfig,
  processNestLogger,
  REQUEST_ID_HEADER,
  runService,
  ServiceKitModule,
} from '@immo/service-kit';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { createGatewayApp } from '../gateway-app';

const API_KEY = 'test-key-7f3a9c2e5b1d4086';
const ADMIN_KEY = 'admin-key-0d8e6b4a2c9f1357';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Written in an ingested snapshot: a body must never reach the logs. */
const BODY_MARKER = 'body-marker-4c1e';

/** Stands in for the geo service: answers departments and logs each one it serves. */
@Controller()
class DepartmentsController {
  private readonly logger = new Logger('Geo');

  @MessagePattern(GEO_SUBJECTS.department)
  department(@Payload() payload: { id: number }) {
    this.logger.log(`department ${payload.id} served`);
    return { code: String(payload.id), name: 'Paris' };
  }
}

@Module({})
class FakeGeoModule {
  static register(nats: NatsConnection): DynamicModule {
    return {
      module: FakeGeoModule,
      imports: [ServiceKitModule.forService({ service: 'geo', instance: 'geo@test', nats, readiness: [], closables: [] })],
      controllers: [DepartmentsController],
    };
  }
}

describe('gateway request ids, access log and HTTP metrics (real NATS, a geo service)', () => {
  let server: RunningNatsServer;
  let dataDir: string;
  let geo: NestFastifyApplication;
  let gateway: NestFastifyApplication;
  let gatewayUrl: string;
  let listingsStub: NatsConnection;
  let gatewayNats: NatsConnection;
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const ingestHeaders: (MsgHdrs | undefined)[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-telemetry-'));
    configureLogging('gateway', { LOG_LEVEL: 'log', LOG_FORMAT: 'json' }, {
      destination: {
        write: (line) => {
          raw.push(line);
          if (process.env['DEBUG_LINES']) process.stderr.write(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    });
    geo = await runService('geo', { NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000, SHUTDOWN_TIMEOUT_MS: 5000, HEALTH_PORT: 0 }, FakeGeoModule.register(await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'geo', principal: null })));

    // Listings ingestion, answered by hand: keeps the headers and refuses the batch.
    listingsStub = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'listings-stub', principal: null });
    const codec = JSONCodec<{ id?: string }>();
    listingsStub.subscribe(LISTINGS_SUBJECTS.ingestAdverts, {
      callback: (_error, message) => {
        ingestHeaders.push(message.headers);
        message.respond(codec.encode({ id: codec.decode(message.data).id, err: { status: 400, title: 'An error occurred', detail: 'refused' } } as { id?: string }));
      },
    });
    await listingsStub.flush();

    const config = loadConfig('gateway', gatewayConfigSchema, { NATS_URL: server.url, API_KEYS: API_KEY, ADMIN_API_KEY: ADMIN_KEY, DATA_DIR: dataDir, RPC_TIMEOUT_MS: '2000', RATE_LIMIT_REQUESTS: '0', AUTH_FAILURES_PER_MINUTE: '0', PUBLIC_REQUESTS_PER_MINUTE: '0' });
    gatewayNats = await connectNats({ NATS_URL: config.NATS_URL, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'gateway', principal: null });
    gateway = await createGatewayApp(config, gatewayNats, { nest: { logger: processNestLogger() } });
    await gateway.listen(0, '127.0.0.1');
    gatewayUrl = await gateway.getUrl();
  });

  afterAll(async () => {
    await gateway?.close();
    // As the gateway's main does: the application does not own the connection it was given.
    await gatewayNats?.drain();
    await geo?.close();
    await listingsStub?.drain();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = { 'x-api-key': API_KEY }) => gateway.inject({ method: 'GET', url, headers });
  const accessLine = (requestId: string) => lines.find((line) => line['context'] === 'HTTP' && line['requestId'] === requestId);

  it('takes the caller’s X-Request-Id, returns it and sends it to the service, whose log line carries it', async () => {
    const response = await get('/departments/75', { 'x-api-key': API_KEY, 'x-request-id': 'client-abc-123' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('client-abc-123');
    expect(lines.find((line) => line['context'] === 'Geo' && line['msg'] === 'department 75 served')).toMatchObject({ requestId: 'client-abc-123' });
  });

  it('logs one line per request: method, route pattern, path without query, status, duration, id', async () => {
    await get('/departments/13?token=query-secret-9', { 'x-api-key': API_KEY, 'x-request-id': 'line-check-1' });
    const line = accessLine('line-check-1');
    expect(line).toMatchObject({ level: 'info', name: 'gateway', method: 'GET', route: '/departments/:id', path: '/departments/13', status: 200, durationMs: expect.any(Number) });
    expect(line?.['msg']).toMatch(/^GET \/departments\/:id 200 [\d.]+ ms$/);
    expect(lines.filter((l) => l['context'] === 'HTTP' && l['requestId'] === 'line-check-1')).toHaveLength(1);
  });

  it('generates a UUID when the caller sent none, or one that is too long', async () => {
    const none = await get('/departments/75');
    expect(none.headers['x-request-id']).toMatch(UUID);
    const tooLong = await get('/departments/75', { 'x-api-key': API_KEY, 'x-request-id': 'x'.repeat(129) });
    expect(tooLong.headers['x-request-id']).toMatch(UUID);
    expect(accessLine(String(tooLong.headers['x-request-id']))).toMatchObject({ status: 200 });
  });

  it('returns the id on error answers too: 401 from the key check, 404 from no route, 503 from no service', async () => {
    const unauthorized = await get('/departments/75', { 'x-request-id': 'err-401' });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers['x-request-id']).toBe('err-401');
    expect(accessLine('err-401')).toMatchObject({ status: 401, route: '/departments/:id' });

    const notFound = await get('/no/such/route', { 'x-api-key': API_KEY, 'x-request-id': 'err-404' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.headers['x-request-id']).toBe('err-404');
    expect(accessLine('err-404')).toMatchObject({ status: 404, route: 'unmatched', path: '/no/such/route' });

    const unavailable = await get('/cities/69123', { 'x-api-key': API_KEY, 'x-request-id': 'err-503' });
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.headers['x-request-id']).toBe('err-503');
    expect(accessLine('err-503')).toMatchObject({ level: 'warn', status: 503, route: '/cities/:id' });
  });

  it('keeps the id across a request body read from the socket and passes it to the service called with it', async () => {
    // The body's second half arrives later, in a socket event outside the request's async context.
    const body = JSON.stringify([{ site: 'test', reference: BODY_MARKER }]);
    const response = await new Promise<{ status: number; requestId: string | undefined }>((resolve, reject) => {
      const request = httpRequest(
        `${gatewayUrl}/admin/adverts`,
        { method: 'POST', headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': 'ingest-77' } },
        (answer) => {
          answer.resume();
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0, requestId: answer.headers['x-request-id'] as string | undefined }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
      setTimeout(() => request.end(body.slice(10)), 100);
    });
    expect(response.status).toBe(400);
    expect(response.requestId).toBe('ingest-77');
    expect(ingestHeaders.at(-1)?.get(REQUEST_ID_HEADER)).toBe('ingest-77');
    expect(accessLine('ingest-77')).toMatchObject({ method: 'POST', route: '/admin/adverts', status: 400 });
  });

  it('never logs an API key, a query string or a body', () => {
    const logged = raw.join('');
    expect(logged).toContain('/departments/:id');
    for (const secret of [API_KEY, ADMIN_KEY, 'query-secret-9', BODY_MARKER]) expect(logged).not.toContain(secret);
  });

  it('serves /metrics without a key: HTTP requests by route pattern and status, NATS requests, process metrics', async () => {
    await get('/metrics', {});
    const response = await get('/metrics', {});
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.body;
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/departments\/:id",status_code="200"\} 4$/m);
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/admin/adverts",status_code="400"} 1');
    expect(text).not.toContain('route="/metrics"');
    expect(text).toContain(`nats_request_duration_seconds_count{subject="${GEO_SUBJECTS.department}",outcome="ok"} 4`);
    expect(text).toContain(`nats_request_duration_seconds_count{subject="${GEO_SUBJECTS.cityResource}",outcome="unavailable"} 1`);
    expect(text).toContain(`nats_request_duration_seconds_count{subject="${LISTINGS_SUBJECTS.ingestAdverts}",outcome="remote"} 1`);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_p99_seconds gauge');
    expect(text).not.toMatch(/\/departments\/75/);
  });
});
