import type { OnApplicationShutdown } from '@nestjs/common';
import type { RateLimiter } from '../http/rate-limit/rate-limiter';

/**
 * Failed authentications per client address (brute force of keys): counted in the rate-limit
 * buckets the gateways share, so the limit holds whichever gateway a guess reaches. Once an
 * address is over it, this gateway refuses its requests until the retry time without looking any
 * key up.
 */
export class AuthFailureLimiter implements OnApplicationShutdown {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly now: () => number = Date.now,
  ) {}

  onApplicationShutdown(): Promise<void> {
    return this.limiter.onApplicationShutdown();
  }

  get perMinute(): number {
    return this.limiter.settings.requests;
  }

  /** Seconds to wait when this address is over its failures, else null. */
  blocked(address: string): number | null {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return null;
    const left = until - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.blockedUntil.delete(address);
    return null;
  }

  /** Counts a failure; the seconds to wait when it was one too many, else null. */
  async failed(address: string): Promise<number | null> {
    const decision = await this.limiter.take(`auth-failures:${address}`);
    if (decision === null || decision.allowed) return null;
    // Bounded: an address forgotten past its block is dropped at its next look (and the map cleared when large).
    if (this.blockedUntil.size > 100_000) this.blockedUntil.clear();
    this.blockedUntil.set(address, this.now() + decision.retryAfterSeconds * 1000);
    return decision.retryAfterSeconds;
  }
}
