import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError } from './secret-box';

const ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const OTHER_ACCOUNT = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d7';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7fPbHd9w0JM=';
const SEALED_FORMAT = /^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

/** Replaces part `index` of a sealed value (0 format, 1 key id, 2 IV, 3 ciphertext, 4 tag) with a copy that has one bit flipped. */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('SecretBox', () => {
  const k1 = { id: 'k1', key: randomBytes(32) };
  const k2 = { id: 'k2', key: randomBytes(32) };

  it('opens what it sealed, for the record it was sealed for, and the sealed value does not hold the plaintext', () => {
    const box = new SecretBox([k1]);

    const sealed = box.seal(SECRET, ACCOUNT);

    expect(sealed).toMatch(SEALED_FORMAT);
    expect(sealed).not.toContain(SECRET.slice('whsec_'.length));
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(SecretBox.isSealed(SECRET)).toBe(false);
    expect(box.open(sealed, ACCOUNT)).toBe(SECRET);
  });

  it('seals one value differently each time (a fresh IV per seal)', () => {
    const box = new SecretBox([k1]);

    const [first, second] = [box.seal(SECRET, ACCOUNT), box.seal(SECRET, ACCOUNT)];

    expect(first).not.toBe(second);
    expect(first.split('.')[2]).not.toBe(second.split('.')[2]);
    expect([box.open(first, ACCOUNT), box.open(second, ACCOUNT)]).toEqual([SECRET, SECRET]);
  });

  it.each([
    ['IV', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('refuses a value whose %s was altered', (_part, index) => {
    const box = new SecretBox([k1]);
    const sealed = box.seal(SECRET, ACCOUNT);

    expect(() => box.open(flipBit(sealed, index), ACCOUNT)).toThrow(new SecretBoxError('does not open under key "k1": altered, or sealed for another record'));
  });

  it('refuses a value copied onto another record (the record id is authenticated)', () => {
    const box = new SecretBox([k1]);

    const sealed = box.seal(SECRET, ACCOUNT);

    expect(() => box.open(sealed, OTHER_ACCOUNT)).toThrow(SecretBoxError);
  });

  it('refuses a value relabelled with another key id it holds', () => {
    const box = new SecretBox([k1, k2]);
    const sealed = box.seal(SECRET, ACCOUNT);

    expect(() => box.open(sealed.replace('v1.k1.', 'v1.k2.'), ACCOUNT)).toThrow(new SecretBoxError('does not open under key "k2": altered, or sealed for another record'));
  });

  it('names the key a value was sealed under when it does not hold that key', () => {
    const sealed = new SecretBox([{ id: 'retired', key: randomBytes(32) }]).seal(SECRET, ACCOUNT);

    expect(() => new SecretBox([k2, k1]).open(sealed, ACCOUNT)).toThrow(new SecretBoxError('sealed under key "retired", which SECRETS_KEY does not hold (it holds k2, k1)'));
  });

  it('refuses what is not a sealed value', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal(SECRET, ACCOUNT);

    for (const value of [SECRET, '', 'v2' + sealed.slice(2), sealed.split('.').slice(0, 4).join('.'), `${sealed}.x`, sealed.replace(/\.[^.]+$/, '.AAAA')]) {
      expect(() => box.open(value, ACCOUNT)).toThrow(/^not a sealed value/);
    }
  });

  it('seals under its first key and opens under any of them, as a key rotation needs', () => {
    const before = new SecretBox([k1]).seal(SECRET, ACCOUNT);
    const rotating = new SecretBox([k2, k1]);

    const after = rotating.seal(SECRET, ACCOUNT);

    expect(rotating.currentKeyId).toBe('k2');
    expect(after.startsWith('v1.k2.')).toBe(true);
    expect([rotating.open(before, ACCOUNT), rotating.open(after, ACCOUNT)]).toEqual([SECRET, SECRET]);
    expect(() => new SecretBox([k1]).open(after, ACCOUNT)).toThrow(/sealed under key "k2"/);
  });

  it('refuses keys that are not 32 bytes, ids that cannot travel in a sealed value, ids given twice, and no key at all', () => {
    expect(() => new SecretBox([])).toThrow(RangeError);
    expect(() => new SecretBox([{ id: 'short', key: randomBytes(16) }])).toThrow('key "short" must be 32 bytes, not 16');
    expect(() => new SecretBox([{ id: 'a.b', key: randomBytes(32) }])).toThrow(/key id "a.b" must be/);
    expect(() => new SecretBox([k1, { id: 'k1', key: randomBytes(32) }])).toThrow('key id "k1" is given twice');
  });
});
