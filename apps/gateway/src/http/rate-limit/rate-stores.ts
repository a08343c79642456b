/**
 * Where each API key's rate state lives. One gateway keeps it in memory; several share it in a
 * NATS KV bucket, compare-and-set on the key's revision, so the limit holds across replicas
 * (a request served by any of them counts for all).
 */
import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { NatsError, type KV } from 'nats';
import { KeyedSerializer } from '@immo/service-kit';
import { decide, type RateDecision, type RatePolicy } from './gcra';

export interface RateStore {
  decide(key: string, nowMs: number): Promise<RateDecision>;
}

/** Keys remembered at most in memory; a forgotten key starts with a full bucket again. */
const LOCAL_KEYS = 100_000;

export class LocalRateStore implements RateStore {
  private readonly tats: LRUCache<string, number>;

  constructor(private readonly policy: RatePolicy) {
    this.tats = new LRUCache({ max: LOCAL_KEYS });
  }

  async decide(key: string, nowMs: number): Promise<RateDecision> {
    const decision = decide(this.policy, this.tats.get(key) ?? null, nowMs);
    if (decision.allowed) this.tats.set(key, decision.tat);
    return decision;
  }
}

/**
 * Another replica wrote between our read and our write: read again and retry. Only allowed
 * requests write, so retries end once the burst is spent (refusals need no write); the bound is
 * a safety net against a store that never settles.
 */
const MAX_ATTEMPTS = 50;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function isRevisionConflict(error: unknown): boolean {
  return error instanceof NatsError && /wrong last sequence|key exists/i.test(error.message);
}

export class SharedRateStore implements RateStore {
  private readonly logger = new Logger('SharedRateStore');
  /** The last value and revision seen per key: usually current, so a request costs one write. */
  private readonly known = new LRUCache<string, { tat: number; revision: number }>({ max: LOCAL_KEYS });
  /** Requests of one key in this process go one at a time, so they never conflict with each other. */
  private readonly serial = new KeyedSerializer();

  constructor(
    private readonly kv: KV,
    private readonly policy: RatePolicy,
  ) {}

  decide(key: string, nowMs: number): Promise<RateDecision> {
    return this.serial.run(key, () => this.decideAlone(kvKey(key), nowMs));
  }

  private async decideAlone(key: string, nowMs: number): Promise<RateDecision> {
    let known = this.known.get(key) ?? (await this.read(key));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const decision = decide(this.policy, known?.tat ?? null, nowMs);
      // A refusal changes nothing; and an older state than the stored one refuses no more than it would.
      if (!decision.allowed) return decision;
      try {
        const value = encoder.encode(String(decision.tat));
        const revision = known ? await this.kv.update(key, value, known.revision) : await this.kv.create(key, value);
        this.known.set(key, { tat: decision.tat, revision });
        return decision;
      } catch (error) {
        if (!isRevisionConflict(error)) throw error;
        // A little jitter, so two replicas that collided do not collide again in step.
        if (attempt > 2) await new Promise((resolve) => setTimeout(resolve, Math.random() * attempt));
        known = await this.read(key);
      }
    }
    this.logger.warn(`rate state of ${key} kept changing under ${MAX_ATTEMPTS} attempts; request allowed`);
    return decide(this.policy, null, nowMs);
  }

  private async read(key: string): Promise<{ tat: number; revision: number } | null> {
    const entry = await this.kv.get(key);
    if (entry === null || entry.operation !== 'PUT') {
      this.known.delete(key);
      // A deleted or expired key is written again with `create`... unless a tombstone holds a revision.
      return entry === null ? null : { tat: 0, revision: entry.revision };
    }
    const state = { tat: Number(decoder.decode(entry.value)), revision: entry.revision };
    this.known.set(key, state);
    return state;
  }
}

/** KV keys allow letters, digits and `-/_=.`: key ids are already such, the rest is replaced. */
function kvKey(key: string): string {
  return `k.${key.replace(/[^-/_=.a-zA-Z0-9]/g, '_')}`;
}
