import { decideAfterAttempt, MAX_RETRY_AFTER_MS, type DeliveryDecision } from './delivery-outcome';
import type { PostOutcome } from './guarded-https-client';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const policy = { maxRetries: 3, retryIntervalMs: 60_000 };
const DAY = 24 * 60 * 60 * 1000;

const status = (statusCode: number, retryAfterMs: number | null = null): PostOutcome => ({ statusCode, durationMs: 40, error: null, retryAfterMs });
const failure = (error: string): PostOutcome => ({ statusCode: null, durationMs: 40, error, retryAfterMs: null });

describe('decideAfterAttempt', () => {
  it.each<[string, PostOutcome, number, DeliveryDecision]>([
    // Accepted: whatever the attempt.
    ['200', status(200), 1, { status: 'delivered' }],
    ['201', status(201), 2, { status: 'delivered' }],
    ['204 on the last attempt', status(204), 4, { status: 'delivered' }],
    ['299', status(299), 1, { status: 'delivered' }],
    // Gone: the endpoint is retired, even on the last attempt.
    ['410', status(410), 1, { status: 'gone' }],
    ['410 on the last attempt', status(410), 4, { status: 'gone' }],
    // Anything else is retried after the interval.
    ['a redirect', status(302), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['304', status(304), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['400', status(400), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['404', status(404), 2, { status: 'retry', atMs: NOW + 60_000 }],
    ['500', status(500), 3, { status: 'retry', atMs: NOW + 60_000 }],
    ['a timeout', failure('timed out after 10000 ms'), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['a refused private address', failure('address 10.0.0.1 is private (hooks.example.com)'), 1, { status: 'retry', atMs: NOW + 60_000 }],
    // Retry-After is heeded on 429 and 503 only, never negative, at most a day.
    ['429 with Retry-After', status(429, 7000), 1, { status: 'retry', atMs: NOW + 7000 }],
    ['503 with Retry-After', status(503, 300_000), 2, { status: 'retry', atMs: NOW + 300_000 }],
    ['429 asking for less than the interval', status(429, 1000), 1, { status: 'retry', atMs: NOW + 1000 }],
    ['429 with Retry-After 0', status(429, 0), 1, { status: 'retry', atMs: NOW }],
    ['429 with a past Retry-After', status(429, -5000), 1, { status: 'retry', atMs: NOW }],
    ['429 asking for more than a day', status(429, 3 * DAY), 1, { status: 'retry', atMs: NOW + MAX_RETRY_AFTER_MS }],
    ['429 without Retry-After', status(429), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['503 without Retry-After', status(503), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['500 with Retry-After', status(500, 7000), 1, { status: 'retry', atMs: NOW + 60_000 }],
    ['502 with Retry-After', status(502, 7000), 1, { status: 'retry', atMs: NOW + 60_000 }],
    // Retries spent: attempt maxRetries + 1 is the last.
    ['500 on the last attempt', status(500), 4, { status: 'failed', reason: 'all 4 attempts failed, the last with HTTP 500' }],
    ['429 with Retry-After on the last attempt', status(429, 7000), 4, { status: 'failed', reason: 'all 4 attempts failed, the last with HTTP 429' }],
    ['a timeout on the last attempt', failure('timed out after 10000 ms'), 4, { status: 'failed', reason: 'all 4 attempts failed, the last with timed out after 10000 ms' }],
    ['an attempt beyond the last', status(404), 5, { status: 'failed', reason: 'all 5 attempts failed, the last with HTTP 404' }],
  ])('%s', (_case, outcome, attemptNumber, expected) => {
    expect(decideAfterAttempt(outcome, attemptNumber, policy, NOW)).toEqual(expected);
  });

  it.each<[string, PostOutcome, DeliveryDecision]>([
    ['a failure', failure('connection refused by hooks.example.com'), { status: 'failed', reason: 'the only attempt failed with connection refused by hooks.example.com' }],
    ['a success', status(200), { status: 'delivered' }],
    ['410', status(410), { status: 'gone' }],
  ])('with no retries, decides %s on the first attempt', (_case, outcome, expected) => {
    expect(decideAfterAttempt(outcome, 1, { maxRetries: 0, retryIntervalMs: 60_000 }, NOW)).toEqual(expected);
  });

  it('names a failure that came without a status or an error', () => {
    expect(decideAfterAttempt({ statusCode: null, durationMs: 0, error: null, retryAfterMs: null }, 1, { maxRetries: 0, retryIntervalMs: 1 }, NOW)).toEqual({
      status: 'failed',
      reason: 'the only attempt failed with no answer',
    });
  });
});
