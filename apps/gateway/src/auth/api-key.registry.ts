import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { accountKeyIdOf, bootstrapAccountId } from '@immo/contracts';

export interface ApiKeyIdentity {
  /** A short, non-secret label of the key, for logs and rate-limit buckets. */
  keyId: string;
  /** The account the caller acts for: saved searches are scoped by it. */
  accountId: string;
  admin: boolean;
  /** An account's key (revocable), not a configured one. */
  revocable?: boolean;
}

/**
 * Keys from configuration rather than from accounts: `API_KEYS` (tests, demos), the admin key, and
 * a key file of an older data directory. Each acts for an account of its own whose id derives
 * from the key (`bootstrapAccountId`). The key file `npm start` writes now holds an account key:
 * the searches service makes it the development account's, and `AccountKeys` checks it, so it can
 * be revoked like any other.
 */
export class ApiKeyRegistry {
  private readonly keys: { digest: Buffer; identity: ApiKeyIdentity }[] = [];

  constructor(options: { apiKeys: string[]; adminKey?: string; dataDir?: string }) {
    const configured = [...options.apiKeys];
    if (options.dataDir) {
      const file = join(options.dataDir, 'api-key');
      const fileKey = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
      if (accountKeyIdOf(fileKey) === null) configured.push(fileKey);
    }
    for (const key of configured.filter((k) => k.length > 0)) this.add(key, false);
    if (options.adminKey) this.add(options.adminKey, true);
  }

  private add(key: string, admin: boolean): void {
    const keyDigest = createHash('sha256').update(key).digest();
    const hex = keyDigest.toString('hex');
    this.keys.push({ digest: keyDigest, identity: { keyId: hex.slice(0, 12), accountId: bootstrapAccountId(hex), admin } });
  }

  /** Compares digests in constant time so response timing leaks nothing about valid keys. */
  identify(presented: string | undefined): ApiKeyIdentity | null {
    if (!presented) return null;
    const candidate = createHash('sha256').update(presented).digest();
    let found: ApiKeyIdentity | null = null;
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, candidate)) found = key.identity;
    }
    return found;
  }

  get size(): number {
    return this.keys.length;
  }
}
