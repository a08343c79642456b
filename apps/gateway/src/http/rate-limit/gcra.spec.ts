import { decide, type RatePolicy } from './gcra';

const policy: RatePolicy = { requests: 60, windowMs: 60_000, burst: 3 };

/** Runs `count` requests at `nowMs`, carrying the state along, and answers the decisions. */
function burst(count: number, nowMs: number, tat: number | null = null) {
  const decisions = [];
  for (let i = 0; i < count; i++) {
    const decision = decide(policy, tat, nowMs);
    if (decision.allowed) tat = decision.tat;
    decisions.push(decision);
  }
  return { decisions, tat };
}

describe('GCRA rate decisions', () => {
  it('given a fresh key, when it makes a burst, then `burst` requests pass with decreasing remaining and the next is refused', () => {
    const { decisions } = burst(4, 1_000_000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
  });

  it('given an exhausted burst, when refused, then Retry-After is the time until one request fits (one interval, here 1 s)', () => {
    const { decisions } = burst(4, 1_000_000);
    expect(decisions[3]).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetSeconds: 3 });
  });

  it('given an exhausted burst, when an interval has passed, then exactly one more request passes', () => {
    const { tat } = burst(3, 1_000_000);
    const { decisions } = burst(2, 1_001_000, tat);
    expect(decisions.map((d) => d.allowed)).toEqual([true, false]);
  });

  it('given a key idle for longer than the burst takes to refill, then the whole burst is available again', () => {
    const { tat } = burst(3, 1_000_000);
    expect(burst(4, 1_000_000 + 3_000, tat).decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });

  it('given a refusal, then the stored state does not move (refusals cost nothing)', () => {
    const { tat } = burst(3, 1_000_000);
    const refused = decide(policy, tat, 1_000_000);
    expect(refused.allowed).toBe(false);
    expect(refused.tat).toBe(tat);
  });

  it('given a steady client at the average rate, then every request passes', () => {
    let tat: number | null = null;
    for (let i = 0; i < 200; i++) {
      const decision = decide(policy, tat, 1_000_000 + i * 1000);
      expect(decision.allowed).toBe(true);
      tat = decision.tat;
    }
  });
});
