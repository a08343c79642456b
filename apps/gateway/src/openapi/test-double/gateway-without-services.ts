import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from 'nats';
import { createLogger, gatewayConfigSchema, loadConfig, type GatewayConfig } from '@immo/service-kit';
import { createGatewayApp } from '../../gateway-app';

/** An API key the test gateway accepts (it acts for an account of its own). */
export const TEST_API_KEY = 'docs-test-key-0123456789';

/** An iteration that ends at once: no message, no status change. */
const nothing = { [Symbol.asyncIterator]: () => ({ next: async (): Promise<IteratorResult<never>> => ({ done: true, value: undefined }) }) };

/**
 * A NATS connection on which nothing ever arrives and nobody answers: enough for the gateway
 * module to start. Routes that ask a service fail as they would without one; the docs need none.
 */
export function idleNatsConnection(): NatsConnection {
  const fake = {
    subscribe: () => ({ ...nothing, unsubscribe: () => undefined, drain: async () => undefined, isClosed: () => false }),
    status: () => nothing,
    isClosed: () => false,
    getServer: () => 'nats://idle.invalid:4222',
    flush: async () => undefined,
    request: async () => {
      throw Object.assign(new Error('503'), { code: '503' });
    },
    close: async () => undefined,
    drain: async () => undefined,
    closed: () => new Promise<void>(() => undefined),
  };
  return fake as unknown as NatsConnection;
}

export function testGatewayConfig(overrides: Record<string, string> = {}): GatewayConfig {
  return loadConfig('gateway', gatewayConfigSchema, {
    API_KEYS: TEST_API_KEY,
    DATA_DIR: join(mkdtempSync(join(tmpdir(), 'gateway-docs-')), 'data'),
    LOG_LEVEL: 'error',
    // The limiters would open NATS KV buckets; the test stacks turn them off too.
    RATE_LIMIT_REQUESTS: '0',
    AUTH_FAILURES_PER_MINUTE: '0',
    PUBLIC_REQUESTS_PER_MINUTE: '0',
    ...overrides,
  });
}

/** The gateway module as `main.ts` starts it, over an idle NATS, listening on a free loopback port. */
export async function startGatewayWithoutServices(overrides: Record<string, string> = {}): Promise<{ app: NestFastifyApplication; baseUrl: string }> {
  const config = testGatewayConfig(overrides);
  const app = await createGatewayApp(config, idleNatsConnection(), { nest: { logger: false }, accessLog: createLogger({ name: 'gateway', level: 'error', format: 'json' }) });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}
