import * as crypto from 'node:crypto';

/** Node's one-shot `crypto.hash(algorithm, data, outputEncoding)` (20.12 and later). */
export type OneShotHash = (algorithm: string, data: string | Buffer, outputEncoding: 'buffer') => Buffer;

const nodeOneShotHash = (crypto as unknown as { hash?: OneShotHash }).hash ?? null;

/**
 * The digest of `data` (a string is hashed as UTF-8). With `crypto.hash`, one call and no `Hash`
 * object: each `createHash` leaves a native context that only a garbage collection frees, from a
 * weak callback on the main thread, and under load those frees waited on malloc's locks (about a
 * tenth of listings' main-thread sleeps while ingesting, one hash per event id and per commit).
 * Older Node versions fall back to `createHash`, with the same result.
 */
export function digest(algorithm: 'sha1' | 'sha256', data: string | Buffer, oneShot: OneShotHash | null = nodeOneShotHash): Buffer {
  if (oneShot !== null) return oneShot(algorithm, data, 'buffer');
  return crypto.createHash(algorithm).update(data).digest();
}
