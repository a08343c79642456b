/**
 * What the alert end-to-end tests share: the stack with a local HTTPS receiver it trusts,
 * advert snapshots to ingest, and a Server-Sent Events client.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSseBlock, type CreatedAccount, type SearchRecord, type SseMessage } from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';
import { startWebhookReceiver, type WebhookReceiver } from '@immo/testing';

export const RETRY_INTERVAL_MS = 700;

export interface AlertsFixture {
  stack: StackFixture;
  receiver: WebhookReceiver;
  admin: Record<string, string>;
  account: CreatedAccount;
  as: Record<string, string>;
  teardown(): Promise<void>;
}

/** `dataDir`: the stack's data directory, kept by teardown (a throw-away one otherwise). */
export async function startAlertsFixture(env: NodeJS.ProcessEnv = {}, dataDir?: string): Promise<AlertsFixture> {
  const certDir = mkdtempSync(join(tmpdir(), 'alerts-e2e-cert-'));
  const receiver = await startWebhookReceiver(certDir);
  const stack = await startStackFixture({
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    // The receiver's address only: other loopback addresses stay refused (the SSRF checks).
    WEBHOOK_PRIVATE_TARGETS_ALLOWED: '127.0.0.1/32',
    WEBHOOK_RETRY_INTERVAL_MS: String(RETRY_INTERVAL_MS),
    WEBHOOK_MAX_RETRIES: '2',
    WEBHOOK_TIMEOUT_MS: '1500',
    ...env,
  }, dataDir);
  const admin = { 'X-API-KEY': stack.stack.adminApiKey };
  const created = await stack.send('POST', '/admin/accounts', { name: 'Alerts e2e' }, admin);
  if (created.status !== 201) throw new Error(`account creation answered ${created.status}`);
  const account = created.body as CreatedAccount;
  return {
    stack,
    receiver,
    admin,
    account,
    as: { 'X-API-KEY': account.apiKey },
    async teardown() {
      await stack.teardown();
      await receiver.close();
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

const EXAMPLE: Record<string, unknown> = (() => {
  const raw = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
  delete raw['$comment'];
  return raw;
})();

export const PLACES = {
  lyon: { commune: { insee: '69123', zipcode: '69003', name: 'Lyon' }, location: { lat: 45.7597, lon: 4.8553, accuracy: 1 } },
  bordeaux: { commune: { insee: '33063', zipcode: '33000', name: 'Bordeaux' }, location: { lat: 44.8378, lon: -0.5792, accuracy: 1 } },
  toulouse: { commune: { insee: '31555', zipcode: '31000', name: 'Toulouse' }, location: { lat: 43.6045, lon: 1.444, accuracy: 1 } },
} as const;

let counter = 0;

/** A snapshot of a new advert (its own reference: one new property), seen now. */
export function aSnapshot(overrides: Record<string, unknown> = {}, place: keyof typeof PLACES = 'lyon'): Record<string, unknown> {
  counter++;
  // Fixed width: no reference is a prefix of another, so a URL found in a payload is that advert's.
  const reference = `AL-${process.pid}-${String(counter).padStart(6, '0')}`;
  const offset = counter * 0.0007;
  const { commune, location } = PLACES[place];
  return {
    ...structuredClone(EXAMPLE),
    site: 'e2e-alerts',
    reference,
    url: `https://e2e-alerts.example/annonces/${reference}`,
    title: `Appartement ${reference}`,
    description: `Annonce synthétique ${reference}, balcon et cave.`,
    commune,
    location: { ...location, lat: location.lat + offset, lon: location.lon + offset },
    seenAt: new Date().toISOString(),
    ...overrides,
  };
}

/** The same advert seen again later with some fields changed (a price drop...). */
export function recrawl(snapshot: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  return { ...snapshot, ...changes, seenAt: new Date().toISOString() };
}

export async function ingest(fixture: AlertsFixture, ...snapshots: Record<string, unknown>[]): Promise<void> {
  const answer = await fixture.stack.send('POST', '/admin/adverts', snapshots, fixture.admin);
  if (answer.status !== 200) throw new Error(`ingestion answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

export async function createSearch(fixture: AlertsFixture, body: Record<string, unknown>): Promise<SearchRecord> {
  const created = await fixture.stack.send('POST', '/searches', { transactionType: 0, propertyTypes: [0], ...body }, fixture.as);
  if (created.status !== 201) throw new Error(`search creation answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body as SearchRecord;
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface SseClient {
  status: number;
  messages: SseMessage[];
  next(timeoutMs: number): Promise<SseMessage>;
  close(): void;
}

/** A minimal EventSource over node:http: the status, then each message as it arrives. */
export function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      const messages: SseMessage[] = [];
      const waiting: ((message: SseMessage) => void)[] = [];
      let taken = 0;
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message = parseSseBlock(block);
          if (!message) continue;
          messages.push(message);
          waiting.shift()?.(message);
        }
      });
      resolve({
        status: response.statusCode ?? 0,
        messages,
        next(timeoutMs) {
          const ready = messages[taken];
          if (ready) {
            taken++;
            return Promise.resolve(ready);
          }
          return new Promise((resolveNext, rejectNext) => {
            const timer = setTimeout(() => rejectNext(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
            waiting.push((message) => {
              clearTimeout(timer);
              taken++;
              resolveNext(message);
            });
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
