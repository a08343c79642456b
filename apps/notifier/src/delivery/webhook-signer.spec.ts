import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeader, webhookHeaders } from './webhook-signer';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ '@type': 'Match', city: 'Évry-Courcouronnes', price: 245000 });

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('differs on every call', () => {
    expect(new Set(Array.from({ length: 20 }, generateWebhookSecret)).size).toBe(20);
  });
});

describe('signatureHeader', () => {
  it("matches the Standard Webhooks specification's example", () => {
    expect(signatureHeader('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'])).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('sends one space-separated v1 signature per secret', () => {
    const header = signatureHeader('id-1', 1700000000, body, [generateWebhookSecret(), generateWebhookSecret()]);
    expect(header.split(' ')).toEqual([expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/), expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/)]);
  });

  it.each([
    ['no secret', [] as string[], 1700000000],
    ['a secret without the whsec_ prefix', ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 1700000000],
    ['an empty secret', ['whsec_'], 1700000000],
    ['a fractional timestamp', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 1700000000.5],
  ])('refuses to sign with %s', (_case, secrets, timestamp) => {
    expect(() => signatureHeader('id-1', timestamp, body, secrets)).toThrow();
  });
});

describe('webhookHeaders', () => {
  const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];

  it('names the JSON body, the sender and the signing headers', () => {
    const timestamp = nowSeconds();
    const headers = webhookHeaders('0b4f5c1e-3a51-4c55-9a6b-1a4f0f0e7d11', timestamp, body, [newSecret]);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'immo-alerts-webhooks/1',
      'webhook-id': '0b4f5c1e-3a51-4c55-9a6b-1a4f0f0e7d11',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
  });

  it.each([
    ['the old secret', 0],
    ['the new secret', 1],
  ])('verifies with the standardwebhooks library holding only %s during a rotation', (_which, index) => {
    const headers = webhookHeaders('msg-rotation', nowSeconds(), body, [oldSecret, newSecret]);
    expect(new Webhook([oldSecret, newSecret][index]!).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('does not verify with a secret it was not signed with', () => {
    const headers = webhookHeaders('msg-1', nowSeconds(), body, [oldSecret, newSecret]);
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow('No matching signature found');
  });

  it('does not verify a tampered body', () => {
    const headers = webhookHeaders('msg-1', nowSeconds(), body, [oldSecret, newSecret]);
    const tampered = body.replace('245000', '145000');
    expect(() => new Webhook(oldSecret).verify(tampered, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(newSecret).verify(tampered, headers)).toThrow('No matching signature found');
  });

  it('does not verify when the id or timestamp is swapped for another', () => {
    const timestamp = nowSeconds();
    const headers = webhookHeaders('msg-1', timestamp, body, [newSecret]);
    expect(() => new Webhook(newSecret).verify(body, { ...headers, 'webhook-id': 'msg-2' })).toThrow('No matching signature found');
    expect(() => new Webhook(newSecret).verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) })).toThrow('No matching signature found');
  });
});
