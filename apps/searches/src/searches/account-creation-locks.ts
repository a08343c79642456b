import { NATS_BUCKETS } from '@immo/contracts';
import { JSONCodec, type KV, type NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';
import { KeyedSerializer } from '@immo/service-kit';

const BUCKET = NATS_BUCKETS.searchesAccountLocks;
const POLL_MS = 20;
const codec = JSONCodec<{ holder: string }>();

/** Runs tasks one at a time per key. */
export interface CreationSerializer {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

export class AccountBusyError extends Error {
  override readonly name = 'AccountBusyError';
}

/**
 * Creations of one account's searches run one at a time across every replica, so the per-account
 * limit holds whichever replicas the creations reach: each holds the account's key in a NATS KV
 * bucket while it counts and appends. The key is created only if absent (an atomic create), and
 * deleted by its holder when done; the bucket forgets a key `ttlMs` after it was written, so the
 * lock of a holder that died is free again after that. A creation takes milliseconds; one that
 * waits longer than the time to live for the lock is refused as busy.
 *
 * Within a replica, creations of one account queue in memory first: only one of them at a time
 * asks the bucket.
 */
export class AccountCreationLocks implements CreationSerializer {
  private readonly local = new KeyedSerializer();

  private constructor(
    private readonly kv: KV,
    private readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** `replicas`: copies of the bucket in a NATS cluster (`NATS_REPLICAS`). */
  static async open(nats: NatsConnection, holder: string, options: { ttlMs?: number; replicas?: number } = {}): Promise<AccountCreationLocks> {
    const { ttlMs = 10_000, replicas = 1 } = options;
    const kv = await whileJetStreamSettles(() => nats.jetstream().views.kv(BUCKET, { ttl: ttlMs, history: 1, replicas }));
    return new AccountCreationLocks(kv, holder, ttlMs);
  }

  run<T>(accountId: string, task: () => Promise<T>): Promise<T> {
    return this.local.run(accountId, async () => {
      const revision = await this.acquire(accountId);
      try {
        return await task();
      } finally {
        // Only this holder's entry: one that expired and was taken since is the new holder's.
        await this.kv.delete(accountId, { previousSeq: revision }).catch(() => undefined);
      }
    });
  }

  private async acquire(accountId: string): Promise<number> {
    const until = Date.now() + this.ttlMs + 2 * POLL_MS;
    for (;;) {
      try {
        return await this.kv.create(accountId, codec.encode({ holder: this.holder }));
      } catch (error) {
        if (!isTaken(error)) throw error;
      }
      if (Date.now() > until) throw new AccountBusyError(`another creation for account ${accountId} held its lock for more than ${this.ttlMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

/** The key exists: `create` failed on its expected last sequence. */
function isTaken(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence|key exists/i.test(error.message);
}
