import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { NatsConnection } from 'nats';
import { accountKeyIdOf, apiKeyDigest, SEARCHES_SUBJECTS, type KeyHolder, type KeyRevokedMessage } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';

/**
 * A live key is re-read this often at most. Revocations arrive sooner (broadcast); this bounds the
 * time a revocation whose broadcast was lost can take to reach this gateway.
 */
const HOLDER_TTL_MS = 4_000;
/** Lookups made again when a revocation of the key arrived while each was in flight. */
const MAX_LOOKUPS = 3;
/**
 * Key ids the searches service did not find (revoked, or asked while the issued ids were not known
 * here) are remembered briefly, so retrying them does not each time cost a NATS request.
 */
const UNKNOWN_TTL_MS = 5_000;
const MAX_CACHED_KEYS = 50_000;

type Cached = KeyHolder | 'unknown';

/**
 * Says which key ids surely were never issued (see `IssuedKeyIds`); synchronously when it can,
 * so that a key it lets through is looked up without waiting a turn.
 */
export interface KeyIdFilter {
  mayBeIssued(keyId: string): boolean | Promise<boolean>;
}

/** Without a filter, every well-formed key is looked up. */
const NO_FILTER: KeyIdFilter = { mayBeIssued: () => true };

/**
 * Keys issued to accounts (`imk_<keyId>_<secret>`), checked against the digests the searches
 * service holds: found by key id, compared in constant time, cached for 4 s. A revocation is
 * broadcast by the searches service once committed and drops the key from every gateway's cache
 * at once; after a NATS reconnection (broadcasts may have been missed) the whole cache is dropped.
 * A lookup under way when a revocation of its key arrives may answer what it read before the
 * revocation: its answer is not used, the key is looked up again. Listeners hear of revocations
 * (live streams opened with the key close).
 */
export class AccountKeys {
  private readonly cache = new LRUCache<string, Cached>({ max: MAX_CACHED_KEYS, ttl: HOLDER_TTL_MS });
  /** Revocations heard per key id since start: a lookup that saw this number move is stale. */
  private readonly revocations = new Map<string, number>();
  private readonly revokedListeners = new Set<(keyId: string) => void>();

  constructor(
    private readonly rpc: NatsRpcClient,
    nats: NatsConnection,
    private readonly issued: KeyIdFilter = NO_FILTER,
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
      const mayBeIssued = this.issued.mayBeIssued(keyId);
      if (!(typeof mayBeIssued === 'boolean' ? mayBeIssued : await mayBeIssued)) return null;
      cached = await this.freshLookUp(keyId);
      this.cache.set(keyId, cached, cached === 'unknown' ? { ttl: UNKNOWN_TTL_MS } : {});
    }
    if (cached === 'unknown') return null;
    const presented = Buffer.from(apiKeyDigest(apiKey), 'hex');
    return timingSafeEqual(presented, Buffer.from(cached.digest, 'hex')) ? cached : null;
  }

  /** Whether the key id is still issued and not revoked, asked of the searches service now (no cache). */
  async stillIssued(keyId: string): Promise<boolean> {
    return (await this.freshLookUp(keyId)) !== 'unknown';
  }

  /** Called with the key id of each revocation heard. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** A revocation: the key leaves the cache, lookups under way are not trusted, listeners hear of it. */
  forget(keyId: string): void {
    this.cache.delete(keyId);
    this.revocations.set(keyId, (this.revocations.get(keyId) ?? 0) + 1);
    // Bounded: the counts only need to outlive the lookups under way.
    if (this.revocations.size > MAX_CACHED_KEYS) this.revocations.clear();
    for (const listener of this.revokedListeners) listener(keyId);
  }

  /** A lookup whose key was not revoked while it ran (see the class comment). */
  private async freshLookUp(keyId: string): Promise<Cached> {
    for (let attempt = 1; ; attempt++) {
      const before = this.revocations.get(keyId) ?? 0;
      const found = await this.lookUp(keyId);
      if ((this.revocations.get(keyId) ?? 0) === before) return found;
      if (attempt >= MAX_LOOKUPS) return 'unknown';
    }
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
