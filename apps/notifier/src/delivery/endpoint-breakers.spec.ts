import { setTimeout as delay } from 'node:timers/promises';
import { EndpointBreakers } from './endpoint-breakers';
import type { PostOutcome } from './guarded-https-client';

const answered = (statusCode: number): PostOutcome => ({ statusCode, durationMs: 3, error: null, retryAfterMs: null });
const unanswered = (error: string): PostOutcome => ({ statusCode: null, durationMs: 3, error, retryAfterMs: null });

/** An attempt that records each call and returns the given outcome. */
function attempt(outcome: PostOutcome): jest.Mock<Promise<PostOutcome>, []> {
  return jest.fn(async () => outcome);
}

describe('EndpointBreakers', () => {
  let breakers: EndpointBreakers;

  afterEach(() => breakers.shutdown());

  it('returns the outcome of every call while the host is well', async () => {
    breakers = new EndpointBreakers();
    const ok = attempt(answered(204));

    expect(await breakers.run('hooks.example.com', ok)).toEqual({ refused: false, outcome: answered(204) });
    expect(ok).toHaveBeenCalledTimes(1);
    expect(breakers.state('hooks.example.com')).toBe('closed');
  });

  it('opens by default after 5 failed calls in the window, then refuses without calling', async () => {
    breakers = new EndpointBreakers();
    const down = attempt(unanswered('connection refused by down.example.com'));

    for (let call = 1; call <= 4; call += 1) {
      expect(await breakers.run('down.example.com', down)).toEqual({ refused: false, outcome: unanswered('connection refused by down.example.com') });
      expect(breakers.state('down.example.com')).toBe('closed');
    }
    expect(await breakers.run('down.example.com', down)).toEqual({ refused: false, outcome: unanswered('connection refused by down.example.com') });
    expect(breakers.state('down.example.com')).toBe('open');

    expect(await breakers.run('down.example.com', down)).toEqual({ refused: true });
    expect(await breakers.run('DOWN.example.com', down)).toEqual({ refused: true });
    expect(down).toHaveBeenCalledTimes(5);
  });

  it.each([
    ['no answer', unanswered('timed out after 10000 ms')],
    ['500', answered(500)],
    ['503', answered(503)],
  ])('counts %s as a failure of the host', async (_case, outcome) => {
    breakers = new EndpointBreakers({ volumeThreshold: 2 });

    await breakers.run('h.example.com', attempt(outcome));
    await breakers.run('h.example.com', attempt(outcome));

    expect(breakers.state('h.example.com')).toBe('open');
  });

  it.each([400, 404, 410, 429, 302])('does not count a %i answer against the host', async (statusCode) => {
    breakers = new EndpointBreakers({ volumeThreshold: 2 });
    const answer = attempt(answered(statusCode));

    for (let call = 0; call < 10; call += 1) expect(await breakers.run('h.example.com', answer)).toEqual({ refused: false, outcome: answered(statusCode) });

    expect(breakers.state('h.example.com')).toBe('closed');
    expect(answer).toHaveBeenCalledTimes(10);
  });

  it('stays closed while no more than half the calls fail', async () => {
    breakers = new EndpointBreakers();

    for (const outcome of [answered(200), unanswered('reset'), answered(200), unanswered('reset'), answered(200), unanswered('reset'), answered(200)]) {
      await breakers.run('flaky.example.com', attempt(outcome));
    }

    expect(breakers.state('flaky.example.com')).toBe('closed');
  });

  it('leaves other hosts unaffected', async () => {
    breakers = new EndpointBreakers({ volumeThreshold: 2 });
    await breakers.run('down.example.com', attempt(answered(502)));
    await breakers.run('down.example.com', attempt(answered(502)));
    const ok = attempt(answered(200));

    expect(await breakers.run('up.example.com', ok)).toEqual({ refused: false, outcome: answered(200) });
    expect(ok).toHaveBeenCalledTimes(1);
    expect(breakers.states()).toEqual({ 'down.example.com': 'open', 'up.example.com': 'closed' });
  });

  it('lets one trial call through after the reset timeout, and closes when it succeeds', async () => {
    breakers = new EndpointBreakers({ volumeThreshold: 2, resetTimeoutMs: 100 });
    await breakers.run('h.example.com', attempt(answered(500)));
    await breakers.run('h.example.com', attempt(answered(500)));
    expect(await breakers.run('h.example.com', attempt(answered(200)))).toEqual({ refused: true });

    await delay(150);
    expect(breakers.state('h.example.com')).toBe('halfOpen');
    let answerTrial!: () => void;
    const trial = jest.fn(() => new Promise<PostOutcome>((resolve) => (answerTrial = () => resolve(answered(200)))));
    const trialRun = breakers.run('h.example.com', trial);
    const during = attempt(answered(200));
    // Only the trial reaches the host while it may still be down.
    expect(await breakers.run('h.example.com', during)).toEqual({ refused: true });
    answerTrial();

    expect(await trialRun).toEqual({ refused: false, outcome: answered(200) });
    expect(trial).toHaveBeenCalledTimes(1);
    expect(during).not.toHaveBeenCalled();
    expect(breakers.state('h.example.com')).toBe('closed');
    expect(await breakers.run('h.example.com', attempt(answered(200)))).toEqual({ refused: false, outcome: answered(200) });
  });

  it('opens again when the trial call fails', async () => {
    breakers = new EndpointBreakers({ volumeThreshold: 2, resetTimeoutMs: 100 });
    await breakers.run('h.example.com', attempt(answered(500)));
    await breakers.run('h.example.com', attempt(answered(500)));
    await delay(150);

    expect(await breakers.run('h.example.com', attempt(unanswered('connection refused by h.example.com')))).toEqual({
      refused: false,
      outcome: unanswered('connection refused by h.example.com'),
    });
    expect(breakers.state('h.example.com')).toBe('open');
    expect(await breakers.run('h.example.com', attempt(answered(200)))).toEqual({ refused: true });
  });

  it('forgets failures older than the window', async () => {
    breakers = new EndpointBreakers({ volumeThreshold: 2, rollingCountTimeoutMs: 100 });
    await breakers.run('h.example.com', attempt(answered(500)));
    await delay(150);

    await breakers.run('h.example.com', attempt(answered(500)));

    expect(breakers.state('h.example.com')).toBe('closed');
  });

  it('rethrows what an attempt throws, counting it as a failure', async () => {
    breakers = new EndpointBreakers({ volumeThreshold: 2 });
    const broken = jest.fn(async (): Promise<PostOutcome> => {
      throw new Error('bug');
    });

    await expect(breakers.run('h.example.com', broken)).rejects.toThrow('bug');
    await expect(breakers.run('h.example.com', broken)).rejects.toThrow('bug');
    expect(breakers.state('h.example.com')).toBe('open');
  });

  it('reports an unseen host as closed and refuses every call once shut down', async () => {
    breakers = new EndpointBreakers();
    expect(breakers.state('never.example.com')).toBe('closed');
    expect(breakers.states()).toEqual({});
    await breakers.run('h.example.com', attempt(answered(200)));

    breakers.shutdown();
    const late = attempt(answered(200));

    expect(await breakers.run('h.example.com', late)).toEqual({ refused: true });
    expect(late).not.toHaveBeenCalled();
  });
});
