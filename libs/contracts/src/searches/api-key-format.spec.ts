import { createHash } from 'node:crypto';
import { accountKeyIdOf, apiKeyDigest, bootstrapAccountId, newApiKey } from './api-key-format';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const V5_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newApiKey', () => {
  it('gives imk_<12 hex key id>_<43 base64url characters>', () => {
    const { apiKey, keyId } = newApiKey();
    expect(keyId).toMatch(/^[0-9a-f]{12}$/);
    expect(apiKey).toMatch(/^imk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(apiKey.startsWith(`imk_${keyId}_`)).toBe(true);
  });

  it('gives the SHA-256 hex digest of the whole key', () => {
    const { apiKey, digest } = newApiKey();
    expect(digest).toBe(sha256Hex(apiKey));
    expect(apiKeyDigest(apiKey)).toBe(digest);
  });

  it('gives a different key id, key and digest each time', () => {
    const first = newApiKey();
    const second = newApiKey();
    expect(second.keyId).not.toBe(first.keyId);
    expect(second.apiKey).not.toBe(first.apiKey);
    expect(second.digest).not.toBe(first.digest);
  });
});

describe('apiKeyDigest', () => {
  it('is the SHA-256 hex digest of its input', () => {
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('accountKeyIdOf', () => {
  it('reads the key id of an issued key', () => {
    const { apiKey, keyId } = newApiKey();
    expect(accountKeyIdOf(apiKey)).toBe(keyId);
  });

  it.each([
    ['a bootstrap key', 'dev-key-123'],
    ['the empty string', ''],
    ['a key id too short', `imk_0123456789a_${'A'.repeat(43)}`],
    ['an upper-case key id', `imk_0123456789AB_${'A'.repeat(43)}`],
    ['a secret too short', `imk_0123456789ab_${'A'.repeat(42)}`],
    ['a secret too long', `imk_0123456789ab_${'A'.repeat(44)}`],
    ['a secret with padding', `imk_0123456789ab_${'A'.repeat(42)}=`],
    ['another prefix', `imx_0123456789ab_${'A'.repeat(43)}`],
    ['trailing text', `imk_0123456789ab_${'A'.repeat(43)} `],
  ])('gives null for %s', (_kind, text) => {
    expect(accountKeyIdOf(text)).toBeNull();
  });
});

describe('bootstrapAccountId', () => {
  it('is shaped as an RFC 4122 version-5 UUID', () => {
    expect(bootstrapAccountId(sha256Hex('dev-key'))).toMatch(V5_UUID);
  });

  it('is stable for a digest', () => {
    const digest = sha256Hex('dev-key');
    expect(bootstrapAccountId(digest)).toBe(bootstrapAccountId(digest));
  });

  it('takes the first 128 bits of the digest, setting only the version and variant bits', () => {
    expect(bootstrapAccountId('0'.repeat(64))).toBe('00000000-0000-5000-8000-000000000000');
    expect(bootstrapAccountId('f'.repeat(64))).toBe('ffffffff-ffff-5fff-bfff-ffffffffffff');
    expect(bootstrapAccountId('0123456789abcdef0123456789abcdef' + 'ff'.repeat(16))).toBe('01234567-89ab-5def-8123-456789abcdef');
  });

  it('differs for different digests', () => {
    expect(bootstrapAccountId(sha256Hex('key-one'))).not.toBe(bootstrapAccountId(sha256Hex('key-two')));
  });

  it('is never shaped as an issued (v4) account id', () => {
    expect(bootstrapAccountId(sha256Hex('dev-key'))).not.toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });
});
