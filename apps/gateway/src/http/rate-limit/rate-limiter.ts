/**
 * Per-API-key rate limits: `RATE_LIMIT_REQUESTS` per `RATE_LIMIT_WINDOW_MS` on average, up to
 * `RATE_LIMIT_BURST` at once. In memory while one gateway runs; in NATS KV, shared, as soon as
 * another one runs. If NATS cannot answer, the gateway's own memory decides rather than refusing
 * every request.
 */
import { NATS_BUCKETS } from '@immo/contracts';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';
import type { RateDecision, RatePolicy } from './gcra';
import { GatewayPresence } from './gateway-presence';
import { LocalRateStore, SharedRateStore } from './rate-stores';

const BUCKET = NATS_BUCKETS.gatewayRateLimits;

export interface RateLimitSettings extends RatePolicy {
  /** False when RATE_LIMIT_REQUESTS is 0. */
  enabled: boolean;
}

export class RateLimiter implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimiter');
  private readonly local: LocalRateStore;

  private constructor(
    readonly settings: RateLimitSettings,
    private readonly shared: SharedRateStore | null,
    private readonly presence: GatewayPresence | null,
  ) {
    this.local = new LocalRateStore(settings);
  }

  static disabled(): RateLimiter {
    return new RateLimiter({ enabled: false, requests: 1, windowMs: 1, burst: 1 }, null, null);
  }

  /**
   * `replicas`: copies of the shared buckets in a NATS cluster (`NATS_REPLICAS`). `bucket`: the KV
   * bucket of its counts (one per policy: a bucket's time to live follows its policy).
   */
  static async open(nats: NatsConnection, settings: RateLimitSettings, instance: string, replicas = 1, bucket: string = BUCKET): Promise<RateLimiter> {
    if (!settings.enabled) return RateLimiter.disabled();
    // Idle keys expire once their bucket would be full again anyway.
    const ttl = Math.ceil((settings.windowMs / settings.requests) * settings.burst) + 60_000;
    const kv = await whileJetStreamSettles(() => nats.jetstream().views.kv(bucket, { ttl, history: 1, replicas }));
    return new RateLimiter(settings, new SharedRateStore(kv, settings), await GatewayPresence.open(nats, instance, replicas));
  }

  /** The decision for one request of this key, or null when limits are off. */
  async take(key: string): Promise<RateDecision | null> {
    if (!this.settings.enabled) return null;
    const now = Date.now();
    if (this.shared === null || this.presence === null || this.presence.replicas < 2) return this.local.decide(key, now);
    try {
      return await this.shared.decide(key, now);
    } catch (error) {
      this.logger.warn(`shared rate state unavailable (${String(error)}); deciding in memory`);
      return this.local.decide(key, now);
    }
  }

  /** This gateway's presence key goes at once, so the others stop counting it. */
  async onApplicationShutdown(): Promise<void> {
    await this.presence?.close();
  }
}
