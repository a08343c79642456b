/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), so receivers can verify our
 * deliveries with any of the spec's libraries. During a secret rotation every delivery carries one
 * signature per secret, so a receiver holding either the old or the new secret accepts it.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** A fresh secret in the spec's format: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`a webhook secret must start with ${SECRET_PREFIX}`);
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('a webhook secret must not be empty');
  return key;
}

/**
 * The `webhook-signature` value: `v1,<base64 HMAC-SHA256>` of `${id}.${timestamp}.${body}` per
 * secret, space-separated. Throws on a programming error (no secret, a malformed one, a timestamp
 * that is not whole seconds): a delivery must never go out unsigned or signed over other text
 * than the `webhook-timestamp` header it travels with.
 */
export function signatureHeader(webhookId: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  if (!Number.isSafeInteger(timestampSeconds)) throw new RangeError('timestampSeconds must be a whole number of seconds');
  const signedContent = `${webhookId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(signedContent, 'utf8').digest('base64')}`).join(' ');
}

/** Every header a delivery sends: the JSON body's type, who we are, and the three signing headers. */
export function webhookHeaders(webhookId: string, timestampSeconds: number, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'immo-alerts-webhooks/1',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(webhookId, timestampSeconds, body, secrets),
  };
}
