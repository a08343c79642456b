import { decideAfterEmail, type SmtpOutcome } from './smtp-outcome';

const policy = { maxRetries: 5, retryIntervalMs: 3_600_000 };
const outcome = (statusCode: number | null, error: string | null = null): SmtpOutcome => ({ statusCode, durationMs: 12, error });

describe('decideAfterEmail', () => {
  it.each([
    ['accepted (250)', outcome(250), 1, { status: 'delivered' }],
    ['greylisted (451), first attempt', outcome(451, 'try again later'), 1, { status: 'retry', atMs: 1_000 + 3_600_000 }],
    ['connection refused, third attempt', outcome(null, 'ECONNREFUSED'), 3, { status: 'retry', atMs: 1_000 + 3_600_000 }],
  ])('%s', (_case, result, attempt, expected) => {
    expect(decideAfterEmail(result, attempt, policy, 1_000)).toEqual(expected);
  });

  it('fails at once on a permanent refusal (5xx), naming the code', () => {
    expect(decideAfterEmail(outcome(550, 'mailbox unknown'), 1, policy, 0)).toEqual({ status: 'failed', reason: 'the SMTP server refused it for good: SMTP 550 (mailbox unknown)' });
  });

  it('fails once the retries are spent on temporary failures', () => {
    expect(decideAfterEmail(outcome(421, 'busy'), 6, policy, 0)).toEqual({ status: 'failed', reason: 'all 6 attempts failed, the last with SMTP 421 (busy)' });
  });
});
