import { Logger } from '@nestjs/common';
import { JSONCodec, type KV, type NatsConnection } from 'nats';

const BUCKET = 'listings_leases';
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
 */
export class IngestionLease {
  private readonly logger = new Logger('IngestionLease');
  private revision: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  private constructor(
    private readonly kv: KV,
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly events: LeaseEvents,
  ) {}

  /** `replicas`: copies of the lease bucket in a NATS cluster (`NATS_REPLICAS`). */
  static async open(nats: NatsConnection, holder: string, events: LeaseEvents, ttlMs = 10_000, replicas = 1): Promise<IngestionLease> {
    const kv = await nats.jetstream().views.kv(BUCKET, { ttl: ttlMs, history: 1, replicas });
    return new IngestionLease(kv, holder, ttlMs, events);
  }

  get held(): boolean {
    return this.revision !== null;
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
    const entry = await this.kv.get(KEY);
    const live = entry !== null && entry.operation === 'PUT';
    if (live && codec.decode(entry.value).holder !== this.holder) return false;
    this.revision = live ? await this.kv.update(KEY, codec.encode({ holder: this.holder }), entry.revision) : await this.kv.create(KEY, codec.encode({ holder: this.holder }));
    return true;
  }

  private async renew(revision: number): Promise<void> {
    this.revision = await this.kv.update(KEY, codec.encode({ holder: this.holder }), revision);
  }

  private lose(): void {
    this.revision = null;
    this.events.lost();
  }
}
