/**
 * What happens to a delivery after an attempt, decided from the attempt's outcome alone so the
 * rule is one pure function the scheduler applies and the tests can read as a table. The receiver
 * accepting (2xx) ends it; 410 Gone means the endpoint is retired for good; everything else is
 * worth another try until the retries are spent. A receiver asking to be left alone (429, 503
 * with Retry-After) is heeded, within a day.
 */
import type { PostOutcome } from './guarded-https-client';

export interface RetryPolicy {
  /** Attempts after the first; the delivery fails after attempt `maxRetries + 1`. */
  maxRetries: number;
  retryIntervalMs: number;
}

export type DeliveryDecision = { status: 'delivered' } | { status: 'gone' } | { status: 'retry'; atMs: number } | { status: 'failed'; reason: string };

/** The longest a receiver's Retry-After can hold a delivery back. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

const HONOURS_RETRY_AFTER = new Set([429, 503]);

function describe(outcome: PostOutcome): string {
  if (outcome.statusCode !== null) return `HTTP ${outcome.statusCode}`;
  return outcome.error ?? 'no answer';
}

/** `attemptNumber` is 1-based: the attempt whose outcome this is. */
export function decideAfterAttempt(outcome: PostOutcome, attemptNumber: number, policy: RetryPolicy, nowMs: number): DeliveryDecision {
  const { statusCode } = outcome;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered' };
  if (statusCode === 410) return { status: 'gone' };
  if (attemptNumber >= policy.maxRetries + 1) {
    const reason = attemptNumber === 1 ? `the only attempt failed with ${describe(outcome)}` : `all ${attemptNumber} attempts failed, the last with ${describe(outcome)}`;
    return { status: 'failed', reason };
  }
  if (statusCode !== null && HONOURS_RETRY_AFTER.has(statusCode) && outcome.retryAfterMs !== null) {
    return { status: 'retry', atMs: nowMs + Math.min(Math.max(outcome.retryAfterMs, 0), MAX_RETRY_AFTER_MS) };
  }
  return { status: 'retry', atMs: nowMs + policy.retryIntervalMs };
}
