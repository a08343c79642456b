import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApiKeyIdentity {
  /** A short, non-secret label of the key, for logs and rate-limit buckets. */
  keyId: string;
  admin: boolean;
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/**
 * The keys the gateway accepts. Until accounts exist they come from configuration: `API_KEYS`
 * and the `api-key` file that `npm start` writes into the data directory.
 */
export class ApiKeyRegistry {
  private readonly keys: { digest: Buffer; identity: ApiKeyIdentity }[] = [];

  constructor(options: { apiKeys: string[]; adminKey?: string; dataDir?: string }) {
    const configured = [...options.apiKeys];
    if (options.dataDir) {
      const file = join(options.dataDir, 'api-key');
      if (existsSync(file)) configured.push(readFileSync(file, 'utf8').trim());
    }
    for (const key of configured.filter((k) => k.length > 0)) this.add(key, false);
    if (options.adminKey) this.add(options.adminKey, true);
  }

  private add(key: string, admin: boolean): void {
    const keyDigest = digest(key);
    this.keys.push({ digest: keyDigest, identity: { keyId: keyDigest.toString('hex').slice(0, 12), admin } });
  }

  /** Compares digests in constant time so response timing leaks nothing about valid keys. */
  identify(presented: string | undefined): ApiKeyIdentity | null {
    if (!presented) return null;
    const candidate = digest(presented);
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
