/**
 * Seals short secrets for storage with AES-256-GCM under a key-encryption key (KEK), so that what
 * the notifier stores (its document store, a MongoDB backup) holds no secret a reader could use
 * without the key, which is kept apart (a Kubernetes Secret). A sealed value names the key that
 * sealed it, so several keys can be held at once: the first seals, every one opens, and the keys
 * can be rotated without a flag day.
 *
 * A sealed value is `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts), with a fresh random
 * 12-byte IV per seal. The caller's context (the id of the record the value belongs to) is bound
 * as additional authenticated data: a value copied onto another record does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface KeyEncryptionKey {
  readonly id: string;
  /** 32 bytes. */
  readonly key: Uint8Array;
}

/** A value that cannot be opened: malformed, sealed under a key not held, altered, or for another record. */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

const FORMAT = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Key ids travel inside sealed values, between dots. */
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class SecretBox {
  private readonly keys = new Map<string, Uint8Array>();
  /** The key new values are sealed under. */
  readonly currentKeyId: string;

  constructor(keys: readonly KeyEncryptionKey[]) {
    const first = keys[0];
    if (first === undefined) throw new RangeError('a SecretBox needs at least one key');
    for (const { id, key } of keys) {
      if (!KEY_ID.test(id)) throw new RangeError(`key id "${id}" must be 1 to 32 letters, digits, "_" or "-"`);
      if (key.length !== KEY_BYTES) throw new RangeError(`key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
      if (this.keys.has(id)) throw new RangeError(`key id "${id}" is given twice`);
      this.keys.set(id, key);
    }
    this.currentKeyId = first.id;
  }

  /** Whether a stored value is a sealed one (rather than a plain value stored before sealing). */
  static isSealed(value: string): boolean {
    return value.startsWith(`${FORMAT}.`);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.currentKeyId) as Uint8Array, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, this.currentKeyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The plaintext of a sealed value; throws a SecretBoxError when it cannot be opened. */
  open(sealed: string, context: string): string {
    const { keyId, iv, ciphertext, tag } = parse(sealed);
    const key = this.keys.get(keyId);
    if (key === undefined) throw new SecretBoxError(`sealed under key "${keyId}", which SECRETS_KEY does not hold (it holds ${[...this.keys.keys()].join(', ')})`);
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // GCM says only that authentication failed; these are the ways it can.
      throw new SecretBoxError(`does not open under key "${keyId}": altered, or sealed for another record`);
    }
  }
}

function parse(sealed: string): { keyId: string; iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const parts = sealed.split('.');
  const [format, keyId, iv, ciphertext, tag] = parts;
  const malformed = () => new SecretBoxError(`not a sealed value (${FORMAT}.<keyId>.<iv>.<ciphertext>.<tag>)`);
  if (parts.length !== 5 || format !== FORMAT || keyId === undefined || !KEY_ID.test(keyId) || iv === undefined || ciphertext === undefined || tag === undefined) throw malformed();
  const decoded = { keyId, iv: Buffer.from(iv, 'base64url'), ciphertext: Buffer.from(ciphertext, 'base64url'), tag: Buffer.from(tag, 'base64url') };
  if (decoded.iv.length !== IV_BYTES || decoded.tag.length !== TAG_BYTES) throw malformed();
  return decoded;
}
