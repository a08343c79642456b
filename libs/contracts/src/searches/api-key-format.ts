import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys of accounts: `imk_<keyId>_<secret>`. The key id is not secret (it names the key in
 * listings, logs and revocations) and lets the gateway find the key's digest without comparing
 * against every key; the secret is 256 random bits. Only the SHA-256 digest of the whole key is
 * stored.
 */
const ACCOUNT_KEY = /^imk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  keyId: string;
  apiKey: string;
  /** SHA-256 of the key, hex. */
  digest: string;
}

export function apiKeyDigest(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function newApiKey(): NewApiKey {
  const keyId = randomBytes(6).toString('hex');
  const apiKey = `imk_${keyId}_${randomBytes(32).toString('base64url')}`;
  return { keyId, apiKey, digest: apiKeyDigest(apiKey) };
}

/** The key id of an account key, or null for anything else (bootstrap keys, garbage). */
export function accountKeyIdOf(apiKey: string): string | null {
  return ACCOUNT_KEY.exec(apiKey)?.[1] ?? null;
}

/**
 * Keys configured rather than issued (`API_KEYS`, a key file from an older data directory) act
 * for an account of their own, whose id derives from the key's digest: stable across restarts and
 * gateway replicas, and never the id of an issued account (those are random v4 UUIDs).
 */
export function bootstrapAccountId(digestHex: string): string {
  const hex = digestHex.slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
