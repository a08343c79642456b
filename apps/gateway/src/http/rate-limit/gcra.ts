/**
 * The generic cell rate algorithm: a token bucket kept as one number per key, the theoretical
 * arrival time (TAT) of the next request. `requests` per `windowMs` on average, up to `burst`
 * at once. One number is what makes the state cheap to share: replicas compare-and-set it in a
 * key-value store.
 */
export interface RatePolicy {
  requests: number;
  windowMs: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The TAT to store when allowed (unchanged when refused). */
  tat: number;
  /** Requests that may still be made at once. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until one more request is allowed. */
  retryAfterSeconds: number;
}

export function decide(policy: RatePolicy, storedTat: number | null, nowMs: number): RateDecision {
  const interval = policy.windowMs / policy.requests;
  const capacityMs = interval * policy.burst;
  const tat = Math.max(storedTat ?? nowMs, nowMs);
  const next = tat + interval;
  const allowAt = next - capacityMs;
  if (nowMs < allowAt) {
    return {
      allowed: false,
      tat,
      remaining: 0,
      resetSeconds: Math.ceil((tat - nowMs) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil((allowAt - nowMs) / 1000)),
    };
  }
  return {
    allowed: true,
    tat: next,
    remaining: Math.max(0, Math.floor((nowMs + capacityMs - next) / interval)),
    resetSeconds: Math.ceil((next - nowMs) / 1000),
    retryAfterSeconds: 0,
  };
}
