/**
 * What happens to an e-mail after an attempt, from the SMTP server's answer alone: accepted
 * (2xx) ends it; a permanent refusal (5xx: unknown mailbox, message refused) fails it at once;
 * a temporary one (4xx: greylisting, mailbox full, server busy) and a connection that failed or
 * timed out are tried again on the webhook schedule until the retries are spent.
 */
import type { RetryPolicy } from '../delivery/delivery-outcome';

export interface SmtpOutcome {
  /** The SMTP reply code; null when none came (connection refused, timed out). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export type EmailDecision = { status: 'delivered' } | { status: 'retry'; atMs: number } | { status: 'failed'; reason: string };

function describe(outcome: SmtpOutcome): string {
  const code = outcome.statusCode !== null ? `SMTP ${outcome.statusCode}` : 'no answer';
  return outcome.error ? `${code} (${outcome.error})` : code;
}

/** `attemptNumber` is 1-based: the attempt whose outcome this is. */
export function decideAfterEmail(outcome: SmtpOutcome, attemptNumber: number, policy: RetryPolicy, nowMs: number): EmailDecision {
  const { statusCode } = outcome;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { status: 'delivered' };
  if (statusCode !== null && statusCode >= 500) return { status: 'failed', reason: `the SMTP server refused it for good: ${describe(outcome)}` };
  if (attemptNumber >= policy.maxRetries + 1) {
    return { status: 'failed', reason: attemptNumber === 1 ? `the only attempt failed with ${describe(outcome)}` : `all ${attemptNumber} attempts failed, the last with ${describe(outcome)}` };
  }
  return { status: 'retry', atMs: nowMs + policy.retryIntervalMs };
}
