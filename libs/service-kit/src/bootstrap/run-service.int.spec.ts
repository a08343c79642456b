import { Controller, Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { headers as natsHeaders, JSONCodec, type MsgHdrs, type NatsConnection } from 'nats';
import { z } from 'zod';
import { freePort, startNatsServer, type RunningNatsServer } from '@immo/testing';
import { configureLogging } from '../logging/logger';
import { REQUEST_ID_HEADER } from '../logging/request-context';
import { collectedGauge } from '../metrics/metrics-registry';
import { connectNats } from '../nats/connect-nats';
import { NatsRpcClient } from '../nats/nats-rpc-client';
import { parseRpcPayload } from '../rpc/parse-rpc-payload';
import { runService } from './run-service';
import { ServiceKitModule } from './service-kit.module';

const traceSchema = z.object({ text: z.string().min(1) }).strict();
const DOWNSTREAM = 'test.downstream.v1';

/** A handler that logs, then calls another service, as a listings handler calling geo does. */
@Controller()
class TraceController {
  private readonly logger = new Logger('Trace');

  constructor(private readonly rpc: NatsRpcClient) {}

  @MessagePattern('test.trace.v1')
  async trace(@Payload() payload: unknown) {
    const { text } = parseRpcPayload(traceSchema, payload);
    this.logger.log(`tracing ${text}`);
    await this.rpc.request(DOWNSTREAM, { text });
    return { text };
  }
}

@Module({})
class TraceModule {
  static register(nats: NatsConnection): DynamicModule {
    return {
      module: TraceModule,
      imports: [ServiceKitModule.forService({ service: 'geo', instance: 'geo@test', nats, readiness: [], closables: [] })],
      controllers: [TraceController],
    };
  }
}

const codec = JSONCodec<{ id?: string }>();

describe('a service started by runService, on a real nats-server', () => {
  let server: RunningNatsServer;
  let app: NestFastifyApplication;
  let client: NatsConnection;
  let rpc: NatsRpcClient;
  let healthPort: number;
  const lines: Record<string, unknown>[] = [];
  const downstreamHeaders: (MsgHdrs | undefined)[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    configureLogging('geo', { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, { destination: { write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
    client = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'test-client', principal: null });
    // The service the handler calls: answers in Nest's envelope and keeps the headers it got.
    client.subscribe(DOWNSTREAM, {
      callback: (_error, message) => {
        downstreamHeaders.push(message.headers);
        message.respond(codec.encode({ id: codec.decode(message.data).id, response: 'ok' } as { id?: string }));
      },
    });
    await client.flush();
    healthPort = await freePort();
    const nats = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'geo', principal: null });
    app = await runService('geo', { NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000, SHUTDOWN_TIMEOUT_MS: 5000, HEALTH_PORT: healthPort }, TraceModule.register(nats));
    rpc = new NatsRpcClient(client, 2000);
  });

  afterAll(async () => {
    await app?.close();
    await client?.drain();
    await server?.stop();
  });

  const linesOf = (context: string) => lines.filter((line) => line['context'] === context);

  it('binds the caller’s request id to the handler’s log lines and passes it on downstream', async () => {
    await expect(rpc.request('test.trace.v1', { text: 'one' }, { requestId: 'trace-0001' })).resolves.toEqual({ text: 'one' });
    expect(linesOf('Trace').at(-1)).toMatchObject({ level: 'info', name: 'geo', msg: 'tracing one', requestId: 'trace-0001' });
    expect(downstreamHeaders.at(-1)?.get(REQUEST_ID_HEADER)).toBe('trace-0001');
    expect(linesOf('NATS').at(-1)).toMatchObject({ level: 'debug', subject: 'test.trace.v1', outcome: 'ok', requestId: 'trace-0001', durationMs: expect.any(Number) });
  });

  it('logs without a request id when the caller sent none, and sends none on', async () => {
    await rpc.request('test.trace.v1', { text: 'two' });
    expect(linesOf('Trace').at(-1)).toMatchObject({ msg: 'tracing two' });
    expect(linesOf('Trace').at(-1)).not.toHaveProperty('requestId');
    expect(downstreamHeaders.at(-1)?.get(REQUEST_ID_HEADER) ?? '').toBe('');
  });

  it('ignores an id that is not printable or too long', async () => {
    const headers = natsHeaders();
    headers.set(REQUEST_ID_HEADER, 'x'.repeat(129));
    await client.request('test.trace.v1', JSON.stringify({ pattern: 'test.trace.v1', id: 'nest-1', data: { text: 'three' } }), { timeout: 2000, headers });
    expect(linesOf('Trace').at(-1)).toMatchObject({ msg: 'tracing three' });
    expect(linesOf('Trace').at(-1)).not.toHaveProperty('requestId');
  });

  it('logs a failed request with its status at debug level', async () => {
    await expect(rpc.request('test.trace.v1', { text: '' }, { requestId: 'trace-bad' })).rejects.toMatchObject({ kind: 'remote' });
    expect(linesOf('NATS').at(-1)).toMatchObject({ subject: 'test.trace.v1', outcome: 'error', status: 400, requestId: 'trace-bad' });
  });

  it('serves Prometheus metrics on the health port, beside the probes', async () => {
    collectedGauge({ name: 'test_projection_lag', help: 'test', read: () => 4 });
    const response = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    expect(text).toContain('nats_request_duration_seconds_count{subject="test.trace.v1",outcome="ok"} 2');
    expect(text).toContain('nats_request_duration_seconds_count{subject="test.trace.v1",outcome="remote"} 1');
    expect(text).toContain(`nats_request_duration_seconds_count{subject="${DOWNSTREAM}",outcome="ok"} 3`);
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) expect(text).toContain(`# TYPE ${name}`);
    expect(text).toMatch(/^test_projection_lag 4$/m);
    expect((await fetch(`http://127.0.0.1:${healthPort}/health/live`)).status).toBe(200);
  });
});

/** A start-up hook that loads for as long as the test says, as listings loads its search index. */
class SlowLoad {
  release!: () => void;
  readonly done = new Promise<void>((resolve) => (this.release = resolve));
  loaded = false;
}

@Controller()
class LoadedController implements OnApplicationBootstrap {
  constructor(@Inject(SlowLoad) private readonly load: SlowLoad) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.load.done;
    this.load.loaded = true;
  }

  @MessagePattern('test.loaded.v1')
  loaded() {
    return { loaded: this.load.loaded };
  }
}

describe('a service whose start-up hooks are still loading', () => {
  let server: RunningNatsServer;
  let client: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    client = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'test-client', principal: null });
  });

  afterAll(async () => {
    await client?.drain();
    await server?.stop();
  });

  it('does not join its queue group until they are done: no request is answered from a half-loaded state', async () => {
    const load = new SlowLoad();
    const nats = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'geo', principal: null });
    const module: DynamicModule = {
      module: class LoadingModule {},
      imports: [ServiceKitModule.forService({ service: 'geo', instance: 'geo@loading', nats, readiness: [], closables: [] })],
      controllers: [LoadedController],
      providers: [{ provide: SlowLoad, useValue: load }],
    };
    const starting = runService('geo', { NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000, SHUTDOWN_TIMEOUT_MS: 5000, HEALTH_PORT: 0 }, module);
    const rpc = new NatsRpcClient(client, 1000);
    // Long enough for Nest to have subscribed, had it subscribed before the hooks.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(rpc.request('test.loaded.v1', {})).rejects.toThrow(/No service answers/);

    load.release();
    const app = await starting;
    try {
      await expect(rpc.request('test.loaded.v1', {})).resolves.toEqual({ loaded: true });
    } finally {
      await app.close();
    }
  });
});

