import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@immo/testing';
import { startStack, type RunningStack } from './stack';

/** Repository root (this file is tools/stack/src/stack-fixture.ts). */
export const ROOT = resolve(__dirname, '..', '..', '..');

export interface StackFixture {
  stack: RunningStack;
  dataDir: string;
  logDir: string;
  /** GET with the stack's API key unless headers say otherwise. */
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: unknown; headers: Headers }>;
  send(method: string, path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  teardown(): Promise<void>;
}

/** The whole embedded stack from dist/ on free ports, with a throw-away data directory. */
export async function startStackFixture(env: NodeJS.ProcessEnv = {}, dataDir?: string): Promise<StackFixture> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'stack-e2e-'));
  const logDir = join(dir, 'logs');
  const stack = await startStack({
    root: ROOT,
    dataDir: dir,
    port: await freePort(),
    natsPort: await freePort(),
    healthPortBase: 0,
    output: { logDir },
    // Tests call in bursts far above a client's limit; the rate-limit tests turn limits on themselves.
    env: { RATE_LIMIT_REQUESTS: '0', AUTH_FAILURES_PER_MINUTE: '0', ...env },
    readyTimeoutMs: 90_000,
  });
  const parse = async (response: Response) => {
    const text = await response.text();
    try {
      return text ? (JSON.parse(text) as unknown) : null;
    } catch {
      return text;
    }
  };
  return {
    stack,
    dataDir: dir,
    logDir,
    async get(path, headers) {
      const response = await fetch(`${stack.baseUrl}${path}`, { headers: headers ?? { 'X-API-KEY': stack.apiKey } });
      return { status: response.status, body: await parse(response), headers: response.headers };
    },
    async send(method, path, body, headers) {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(headers ?? { 'X-API-KEY': stack.apiKey }) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, body: await parse(response) };
    },
    async teardown() {
      await stack.stop();
      // KEEP_STACK_DATA=1 keeps the data directory and logs of a failed run for a look.
      if (!dataDir && !process.env['KEEP_STACK_DATA']) rmSync(dir, { recursive: true, force: true });
    },
  };
}
