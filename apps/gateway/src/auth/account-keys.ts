import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { NatsConnection } from 'nats';
import { accountKeyIdOf, apiKeyDigest, SEARCHES_SUBJECTS, type KeyHolder, type KeyRevokedMessage } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';

/** A live key is re-read this often at most; revocations arrive sooner (broadcast). */
const HOLDER_TTL_MS = 60_000;
/** Unknown key ids are remembered briefly, so garbage keys do not each cost a NATS request. */
const UNKNOWN_TTL_MS = 5_000;
const MAX_CACHED_KEYS = 50_000;

type Cached = KeyHolder | 'unknown';

/**
 * Keys issued to accounts (`imk_<keyId>_<secret>`), checked against the digests the searches
 * service holds: found by key id, compared in constant time, cached for a minute. A revocation is
 * broadcast by the searches service once committed and drops the key from every gateway's cache
 * at once; after a NATS reconnection (broadcasts may have been missed) the whole cache is dropped.
 */
export class AccountKeys {
  private readonly cache = new LRUCache<string, Cached>({ max: MAX_CACHED_KEYS, ttl: HOLDER_TTL_MS });

  constructor(
    private readonly rpc: NatsRpcClient,
    nats: NatsConnection,
  ) {
    const revocations = nats.subscribe(SEARCHES_SUBJECTS.keyRevoked);
    void (async () => {
      for await (const message of revocations) {
        try {
          this.forget((JSON.parse(message.string()) as KeyRevokedMessage).keyId);
        } catch {
          // Not ours to answer: a malformed broadcast changes nothing.
        }
      }
    })();
    void (async () => {
      for await (const status of nats.status()) if (status.type === 'reconnect') this.cache.clear();
    })();
  }

  /**
   * The holder of an account key, null when the key is not one (unknown, revoked, wrong secret).
   * Throws RpcCallError when the searches service cannot be asked.
   */
  async holderOf(apiKey: string): Promise<KeyHolder | null> {
    const keyId = accountKeyIdOf(apiKey);
    if (keyId === null) return null;
    let cached = this.cache.get(keyId);
    if (cached === undefined) {
      cached = await this.lookUp(keyId);
      this.cache.set(keyId, cached, cached === 'unknown' ? { ttl: UNKNOWN_TTL_MS } : {});
    }
    if (cached === 'unknown') return null;
    const presented = Buffer.from(apiKeyDigest(apiKey), 'hex');
    return timingSafeEqual(presented, Buffer.from(cached.digest, 'hex')) ? cached : null;
  }

  forget(keyId: string): void {
    this.cache.delete(keyId);
  }

  private async lookUp(keyId: string): Promise<Cached> {
    try {
      return await this.rpc.request<KeyHolder>(SEARCHES_SUBJECTS.keyById, { keyId });
    } catch (error) {
      if (error instanceof RpcCallError && error.kind === 'remote' && error.payload?.status === 404) return 'unknown';
      throw error;
    }
  }
}
