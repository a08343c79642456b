import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdvertSnapshot, IngestAdvertsReply } from '@immo/contracts';
import { startLiveFeed, type LiveFeed } from './live-feed';
import { until } from '@immo/testing';

/** What the stand-in gateway answers to one request; `undefined` answers 200 with every item accepted. */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'reset' | undefined;

interface Received {
  atMs: number;
  path: string;
  apiKey: string | undefined;
  snapshots: AdvertSnapshot[];
}

/** A stand-in for the gateway's `POST /admin/adverts` on a free port of 127.0.0.1. */
class FakeGateway {
  readonly received: Received[] = [];
  /** Answers for the next requests, in order; then 200. */
  readonly script: Answer[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Snapshots delivered: those of requests answered 200. */
  delivered(): AdvertSnapshot[] {
    return this.received.filter((r) => r.path !== 'failed').flatMap((r) => r.snapshots);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const snapshots = JSON.parse(body) as AdvertSnapshot[];
    const answer = this.script.shift();
    const key = req.headers['x-api-key'];
    const entry: Received = { atMs: performance.now(), path: req.url ?? '', apiKey: Array.isArray(key) ? key[0] : key, snapshots };
    if (answer === 'reset') {
      this.received.push({ ...entry, path: 'failed' });
      req.socket.destroy();
      return;
    }
    if (answer !== undefined) {
      this.received.push({ ...entry, path: 'failed' });
      res.writeHead(answer.status, { 'content-type': 'application/problem+json', ...answer.headers });
      res.end(JSON.stringify(answer.body ?? { status: answer.status, detail: 'scripted failure' }));
      return;
    }
    this.received.push(entry);
    const reply: IngestAdvertsReply = {
      accepted: snapshots.length,
      rejected: 0,
      unchanged: 0,
      results: snapshots.map((_, index) => ({ index, status: 'accepted', advertId: `a-${index}`, propertyId: null, events: [], warnings: [] })),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('startLiveFeed (against a local stand-in for the gateway)', () => {
  let gateway: FakeGateway;
  let baseUrl: string;
  let feed: LiveFeed | null = null;
  const lines: string[] = [];

  beforeEach(async () => {
    gateway = new FakeGateway();
    baseUrl = await gateway.start();
    lines.length = 0;
  });

  afterEach(async () => {
    await feed?.stop();
    feed = null;
    await gateway.stop();
  });

  it('when running for about 2 s at 20 a second, then it sends about 40 snapshots in batches of 5, never ahead of the rate', async () => {
    const started = performance.now();
    feed = startLiveFeed({ baseUrl, adminApiKey: 'admin-key', rate: 20, seed: 3, log: (l) => lines.push(l) });
    await sleep(2_000);
    await feed.stop();
    const elapsedS = (performance.now() - started) / 1000;
    const snapshots = gateway.delivered();

    expect(snapshots.length).toBeGreaterThanOrEqual(Math.floor(20 * elapsedS * 0.7));
    // One slot's worth may go at the very start: slot 0 is at t0.
    expect(snapshots.length).toBeLessThanOrEqual(Math.ceil(20 * elapsedS) + 5);
    expect(new Set(gateway.received.map((r) => r.snapshots.length))).toEqual(new Set([5]));
    expect(gateway.received.every((r) => r.path === '/admin/adverts' && r.apiKey === 'admin-key')).toBe(true);
    // No second of the run received more than the rate, give or take one batch of timer jitter.
    for (const r of gateway.received) {
      const window = gateway.received.filter((x) => x.atMs >= r.atMs && x.atMs < r.atMs + 1000);
      expect(window.reduce((n, x) => n + x.snapshots.length, 0)).toBeLessThanOrEqual(25);
    }
    expect(feed.stats()).toMatchObject({ sent: snapshots.length, accepted: snapshots.length, rejected: 0, retries: 0 });
    expect(Object.values(feed.stats().byKind).reduce((a, b) => a + b, 0)).toBe(snapshots.length);
  });

  it('when ingestion answers 503, then the same batch is sent again after a backoff and nothing is lost', async () => {
    gateway.script.push({ status: 503, body: { status: 503, detail: 'listings is catching up; retry later' } }, 'reset');
    feed = startLiveFeed({ baseUrl, adminApiKey: 'k', rate: 8, seed: 4, initialBackoffMs: 100, log: (l) => lines.push(l) });
    await until(() => gateway.delivered().length >= 8);
    await feed.stop();
    const [first, second, third] = gateway.received;

    expect([first?.path, second?.path, third?.path]).toEqual(['failed', 'failed', '/admin/adverts']);
    expect(third?.snapshots).toEqual(first?.snapshots);
    expect(second?.snapshots).toEqual(first?.snapshots);
    // Then the feed goes on with new snapshots, each delivered once.
    const references = gateway.delivered().map((s) => `${s.site}/${s.reference}/${s.seenAt}/${s.price}`);
    expect(new Set(references).size).toBe(references.length);
    expect(feed.stats()).toMatchObject({ retries: 2, sent: gateway.delivered().length });
    expect(lines.some((l) => l.includes('503 listings is catching up'))).toBe(true);
  });

  it('when told to wait by 429 Retry-After, then it waits that long before trying again', async () => {
    gateway.script.push({ status: 429, headers: { 'retry-after': '1' } });
    feed = startLiveFeed({ baseUrl, adminApiKey: 'k', rate: 4, seed: 5, initialBackoffMs: 50 });
    await until(() => gateway.delivered().length >= 1);
    const [refused, retried] = gateway.received;

    expect((retried?.atMs ?? 0) - (refused?.atMs ?? 0)).toBeGreaterThanOrEqual(950);
    expect(retried?.snapshots).toEqual(refused?.snapshots);
  });

  it('when stopped during a long backoff, then stop resolves at once and nothing more is sent', async () => {
    gateway.script.push({ status: 503 });
    feed = startLiveFeed({ baseUrl, adminApiKey: 'k', rate: 4, initialBackoffMs: 60_000, log: (l) => lines.push(l) });
    await until(() => gateway.received.length === 1);
    const stopping = performance.now();
    await feed.stop();
    const stopMs = performance.now() - stopping;
    await sleep(600);

    expect(stopMs).toBeLessThan(500);
    expect(gateway.received).toHaveLength(1);
    await expect(feed.done).resolves.toBeUndefined();
    expect(lines.some((l) => l.includes('not delivered'))).toBe(true);
  });

  it('when the admin key is refused, then the feed stops and done rejects with the answer', async () => {
    gateway.script.push({ status: 401, body: { status: 401, detail: 'Invalid API key' } });
    feed = startLiveFeed({ baseUrl, adminApiKey: 'wrong', rate: 4 });

    await expect(feed.done).rejects.toThrow(/401 Invalid API key/);
    await sleep(600);
    expect(gateway.received).toHaveLength(1);
  });

  it('refuses a rate that is not a positive number within bounds', () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e6]) {
      expect(() => startLiveFeed({ baseUrl, adminApiKey: 'k', rate })).toThrow(/rate/);
    }
  });
});
