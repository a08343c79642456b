import { z } from 'zod';

/** A key-encryption key: what the notifier seals webhook signing secrets under. */
export interface KeyEncryptionKey {
  readonly id: string;
  readonly key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/** Standard base64 of 32 bytes, as `openssl rand -base64 32` prints it. */
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const FORMAT = '<keyId>:<base64 of 32 random bytes> entries, comma-separated (a key: openssl rand -base64 32)';

/**
 * SECRETS_KEY, the notifier's key-encryption keys: `<keyId>:<base64 key>[,<keyId>:<base64 key>…]`.
 * The first seals, every one opens, so a rotation puts the new key first and drops the old one
 * once `npm run admin -- secrets rekey` has sealed everything under the new one. Required: a
 * notifier without it would have to store secrets readable, so it does not start. Messages
 * never quote a key, nor an entry that could be one: they end up in logs.
 */
export const secretsKey = z.string({ error: `is required: ${FORMAT}` }).transform((value, ctx): KeyEncryptionKey[] => {
  const keys: KeyEncryptionKey[] = [];
  const problem = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  const entries = value.split(',').map((entry) => entry.trim());
  for (const [index, entry] of entries.entries()) {
    const position = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) return problem(`${position} is not <keyId>:<base64 key>; expected ${FORMAT}`);
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) return problem(`the key id of ${position} must be 1 to 32 letters, digits, "_" or "-"`);
    if (keys.some((key) => key.id === id)) return problem(`key id "${id}" is given twice`);
    if (!BASE64_OF_32_BYTES.test(encoded)) return problem(`key "${id}" must be the base64 of exactly 32 bytes (openssl rand -base64 32)`);
    keys.push({ id, key: Buffer.from(encoded, 'base64') });
  }
  return keys;
});
