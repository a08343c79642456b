import { NATS_BUCKETS } from '@immo/contracts';
import { Logger } from '@nestjs/common';
import { JSONCodec, type KV, type NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';

const BUCKET = NATS_BUCKETS.listingsLeases;
const KEY = 'ingestion';
const codec = JSONCodec<{ holder: string }>();

export interface LeaseEvents {
  acquired(): void;
  lost(): void;
}

/**
 * One listings instance at a time leads ingestion, by holding a lease in NATS KV: a key whose
 * bucket forgets it `ttlMs` after its last renewal. Grouping matches a new advert against every
 * advert of its bucket and must run in one place; reads scale on every replica, and one leader
 * ingests several thousand snapshots a second, so a single writer is simpler and safer than
 * partitioning buckets across a changing set of replicas.
 *
 * The holder renews with a compare-and-set on the key's revision; anyone else tries to create
 * the key, which only succeeds once it expired (leader gone) or was deleted (graceful stop). An
 * instance restarted with the same identity (same data directory) takes its own lease back at
 * once instead of waiting for it to expire.
 *
 * A holder that stalls (a long pause, a SIGSTOP) learns it may have lost the lease only at its
 * next renewal, while work it had under way goes on meanwhile. So `surelyHeld` also bounds the
 * lease in time: held at most a time to live, less a margin, after the last renewal was sent, by
 * this process's clock. Ingestion asks it before each append.
 */
export class IngestionLease {
  private readonly logger = new Logger('IngestionLease');
  private revision: number | null = null;
  /** Until when the lease is certainly this holder's: the last renewal's send time plus the time to live, less a margin. */
  private validUntilMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  private constructor(
    private readonly kv: KV,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly events: LeaseEvents,
    private readonly now: () => number,
  ) {}

  /** `replicas`: copies of the lease bucket in a NATS cluster (`NATS_REPLICAS`). */
  static async open(nats: NatsConnection, holder: string, events: LeaseEvents, options: { ttlMs?: number; replicas?: number; now?: () => number } = {}): Promise<IngestionLease> {
    const { ttlMs = 10_000, replicas = 1, now = Date.now } = options;
    const kv = await whileJetStreamSettles(() => nats.jetstream().views.kv(BUCKET, { ttl: ttlMs, history: 1, replicas }));
    return new IngestionLease(kv, holder, ttlMs, events, now);
  }

  get held(): boolean {
    return this.revision !== null;
  }

  /**
   * Held, and renewed recently enough that no other instance can hold it yet: within the time to
   * live of the last renewal's sending, less a fifth of it for clocks and the broker's own delay.
   */
  surelyHeld(): boolean {
    return this.revision !== null && this.now() < this.validUntilMs;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  /** Gives the lease up at once, so another replica takes over without waiting for expiry. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.revision !== null) {
      const revision = this.revision;
      this.lose();
      await this.kv.delete(KEY, { previousSeq: revision }).catch(() => undefined);
    }
  }

  private async tick(): Promise<void> {
    try {
      if (this.revision !== null) await this.renew(this.revision);
      else if (await this.take()) {
        this.logger.log(`${this.holder} leads ingestion`);
        this.events.acquired();
      }
    } catch (error) {
      if (this.revision !== null) {
        // A renewal also fails when the key is simply gone (it expired during a pause, an operator
        // purged it, or nats-server 2.9 lost its per-subject index of the bucket after restarts:
        // seen with npm start's kept data directory, at every renewal). Take it back before letting
        // go, so that ingestion does not answer "retry later" in between; taking it follows the
        // usual rules, so a lease another replica took meanwhile stays theirs.
        const retaken = await this.take().catch(() => false);
        if (!retaken) {
          this.logger.warn(`lost the ingestion lease (${String(error)})`);
          this.lose();
        }
      }
    }
    if (!this.stopped) {
      // Renew well within the time to live; contenders poll at the same pace.
      this.timer = setTimeout(() => void this.tick(), Math.max(100, Math.floor(this.ttlMs / 3)));
      this.timer.unref();
    }
  }

  /** Creates the key when it is free, or takes this holder's own back; false when another holds it. */
  private async take(): Promise<boolean> {
    const sentAt = this.now();
    const entry = await this.kv.get(KEY);
    const live = entry !== null && entry.operation === 'PUT';
    if (live && codec.decode(entry.value).holder !== this.holder) return false;
    this.revision = live ? await this.kv.update(KEY, codec.encode({ holder: this.holder }), entry.revision) : await this.kv.create(KEY, codec.encode({ holder: this.holder }));
    this.validUntilMs = this.validFrom(sentAt);
    return true;
  }

  private async renew(revision: number): Promise<void> {
    const sentAt = this.now();
    this.revision = await this.kv.update(KEY, codec.encode({ holder: this.holder }), revision);
    this.validUntilMs = this.validFrom(sentAt);
  }

  private validFrom(sentAt: number): number {
    return sentAt + this.ttlMs - Math.ceil(this.ttlMs / 5);
  }

  private lose(): void {
    this.revision = null;
    this.validUntilMs = 0;
    this.events.lost();
  }
}
