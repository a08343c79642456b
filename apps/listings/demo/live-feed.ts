/**
 * The live demo feed: sends SYNTHETIC advert changes (`feed-generator.ts`) to a running stack's
 * ingestion API (`POST /admin/adverts`) at a steady rate until stopped, so that saved searches
 * keep hearing of new adverts, price changes, new pictures and expiries.
 *
 * Pacing: `batchesPerSecond` slots a second, placed against a monotonic clock from the start
 * (never "sleep a period after the last send", which drifts). Each slot earns `rate /
 * batchesPerSecond` snapshots; the whole part is sent as one batch. Slots missed while a request
 * was slow or while backing off are skipped, not made up, so the rate is a ceiling.
 *
 * Failures: 429, 5xx (503 while the listings leader catches up), timeouts and network errors keep
 * the batch and send it again, alone, after a backoff (`Retry-After` when given), before anything
 * new is generated: nothing is lost and order is kept. Sending a batch twice is harmless (an
 * identical snapshot appends nothing). Any other answer (401, 403, 400) will not get better by
 * retrying: the feed stops and `done` rejects with the answer.
 */
import type { IngestAdvertsReply } from '@immo/contracts';
import { FEED_KINDS, FeedGenerator, type FeedItem } from './feed-generator';

/** The gateway takes batches of at most 1000 snapshots; four slots a second keep batches below. */
export const MAX_FEED_RATE = 2000;

export interface LiveFeedOptions {
  /** The gateway, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  adminApiKey: string;
  /** Snapshots a second, in (0, MAX_FEED_RATE]; fractions are fine (0.5 is one every 2 s). */
  rate: number;
  seed?: number;
  log?: (line: string) => void;
  /** Default 4. */
  batchesPerSecond?: number;
  /** Per request. Default 30 s (the gateway gives listings 15 s per chunk). */
  requestTimeoutMs?: number;
  /** First retry delay, doubled on each further failure up to `maxBackoffMs`. Defaults 500 ms, 15 s. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface LiveFeedStats {
  /** Snapshots the ingestion API answered for (a retried batch counts once). */
  sent: number;
  accepted: number;
  rejected: number;
  /** Answered snapshots by kind (`new`, `recrawl`, `price-drop`, ...). */
  byKind: Record<string, number>;
  /** Requests that failed and were tried again. */
  retries: number;
}

export interface LiveFeed {
  /** Stops scheduling, lets a request under way finish (its answer is counted), then resolves. */
  stop(): Promise<void>;
  stats(): LiveFeedStats;
  /** Resolves once stopped; rejects if ingestion refused the feed for good (wrong key, bad request). */
  readonly done: Promise<void>;
}

type Outcome = { ok: true; reply: IngestAdvertsReply } | { ok: false; retryAfterMs: number | null; reason: string };

class FeedRefused extends Error {}

export function startLiveFeed(options: LiveFeedOptions): LiveFeed {
  const { rate } = options;
  if (!Number.isFinite(rate) || rate <= 0 || rate > MAX_FEED_RATE) throw new RangeError(`rate must be a number in (0, ${MAX_FEED_RATE}], not ${rate}`);
  const batchesPerSecond = options.batchesPerSecond ?? 4;
  const periodMs = 1000 / batchesPerSecond;
  const perSlot = rate / batchesPerSecond;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 15_000;
  const log = options.log ?? (() => undefined);
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/admin/adverts`;
  const generator = new FeedGenerator({ seed: options.seed });

  const totals: LiveFeedStats = { sent: 0, accepted: 0, rejected: 0, byKind: Object.fromEntries(FEED_KINDS.map((k) => [k, 0])), retries: 0 };
  let stopping = false;
  let wake: (() => void) | null = null;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });

  const post = async (batch: readonly FeedItem[]): Promise<Outcome> => {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-KEY': options.adminApiKey },
        body: JSON.stringify(batch.map((item) => item.snapshot)),
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
    } catch (error) {
      return { ok: false, retryAfterMs: null, reason: describeError(error) };
    }
    const text = await response.text().catch(() => '');
    if (response.ok) {
      try {
        return { ok: true, reply: JSON.parse(text) as IngestAdvertsReply };
      } catch {
        return { ok: false, retryAfterMs: null, reason: `${response.status} with a body that is not JSON` };
      }
    }
    if (response.status === 429 || response.status >= 500) {
      return { ok: false, retryAfterMs: retryAfterMs(response.headers.get('retry-after')), reason: `${response.status} ${detailOf(text)}` };
    }
    throw new FeedRefused(`ingestion refused the feed: ${response.status} ${detailOf(text)}`);
  };

  const record = (batch: readonly FeedItem[], reply: IngestAdvertsReply): void => {
    totals.sent += batch.length;
    totals.accepted += reply.accepted;
    totals.rejected += reply.rejected;
    for (const item of batch) totals.byKind[item.kind] = (totals.byKind[item.kind] ?? 0) + 1;
    if (reply.rejected > 0) {
      const first = Array.isArray(reply.results) ? reply.results.find((r) => r.status === 'rejected') : undefined;
      const why = first?.status === 'rejected' ? first.violations.map((v) => `${v.propertyPath} ${v.message}`).join('; ') : '';
      log(`live feed: ${reply.rejected} of ${batch.length} snapshots rejected (${why})`);
    }
  };

  const run = async (): Promise<void> => {
    const t0 = performance.now();
    let slot = 0;
    let credit = 0;
    let pending: FeedItem[] | null = null;
    let failures = 0;
    log(`live feed: ${rate} snapshots/s to ${endpoint}, run ${generator.runId}`);
    while (!stopping) {
      const due = t0 + slot * periodMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopping) break;
      // Skip the slots missed (slow answer, backoff): the rate is a ceiling, not a debt.
      slot = Math.max(slot, Math.floor((performance.now() - t0) / periodMs)) + 1;

      let batch: FeedItem[] | null = pending;
      if (batch === null) {
        credit += perSlot;
        const n = Math.floor(credit + 1e-9);
        if (n === 0) continue;
        credit -= n;
        batch = generator.next(n);
      }
      const outcome = await post(batch);
      if (outcome.ok) {
        if (failures > 0) log(`live feed: ingestion answers again after ${failures} failed attempt(s)`);
        pending = null;
        failures = 0;
        record(batch, outcome.reply);
        continue;
      }
      pending = batch;
      failures++;
      totals.retries++;
      const delayMs = outcome.retryAfterMs ?? Math.min(maxBackoffMs, initialBackoffMs * 2 ** (failures - 1));
      // Logged on the first failure and then sparingly, not once per attempt of a long outage.
      if (failures === 1 || Number.isInteger(Math.log2(failures))) {
        log(`live feed: batch of ${batch.length} not delivered (${outcome.reason}); attempt ${failures}, retrying in ${Math.round(delayMs)} ms`);
      }
      slot = Math.max(slot, Math.ceil((performance.now() + delayMs - t0) / periodMs));
    }
    if (pending !== null) log(`live feed: stopped with a batch of ${pending.length} snapshots not delivered`);
  };

  const done = run().catch((error: unknown) => {
    stopping = true;
    if (error instanceof FeedRefused) log(`live feed: ${error.message}`);
    throw error;
  });
  // `stop()` must settle even when nobody awaits `done`: that rejection is reported through it.
  done.catch(() => undefined);

  return {
    stats: () => ({ ...totals, byKind: { ...totals.byKind } }),
    done,
    async stop() {
      stopping = true;
      wake?.();
      await done.catch(() => undefined);
    },
  };
}

function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The problem document's `detail` when there is one, else the start of the body. */
function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

