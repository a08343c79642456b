import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@immo/testing';
import { startStack, type RunningStack, type StackOptions } from './stack';

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

/** The permission violations nats-server logged (each distinct line once). */
export function permissionViolations(logDir: string): string[] {
  const lines = readdirSync(logDir)
    .filter((name) => name.startsWith('nats-server'))
    .flatMap((name) => readFileSync(join(logDir, name), 'utf8').split('\n'))
    .filter((line) => / - (Publish|Subscription) Violation - /.test(line))
    .map((line) => line.replace(/^.* - ((Publish|Subscription) Violation - .*?)(, SID \d+)?$/, '$1'));
  return [...new Set(lines)];
}

/** The whole embedded stack from dist/ on free ports, with a throw-away data directory. */
export async function startStackFixture(env: NodeJS.ProcessEnv = {}, dataDir?: string, shape: Pick<StackOptions, 'localInbox'> = {}): Promise<StackFixture> {
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
    env: { RATE_LIMIT_REQUESTS: '0', AUTH_FAILURES_PER_MINUTE: '0', PUBLIC_REQUESTS_PER_MINUTE: '0', ...env },
    readyTimeoutMs: 90_000,
    ...shape,
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
      const refused = permissionViolations(logDir);
      // KEEP_STACK_DATA=1 keeps the data directory and logs of a failed run for a look.
      if (!dataDir && !process.env['KEEP_STACK_DATA']) rmSync(dir, { recursive: true, force: true });
      // Every end-to-end suite checks the NATS allow-lists: a service refused a subject it needs fails it.
      if (refused.length > 0) throw new Error(`nats-server refused subjects the services asked for (grant them in nats-permissions.ts):\n${refused.join('\n')}`);
    },
  };
}
