import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { WebhookDryRun } from '@immo/contracts';
import { startStackFixture } from '@immo/stack';
import type { ReceivedWebhook } from '@immo/testing';
import { aSnapshot, createSearch, ingest, startAlertsFixture, type AlertsFixture } from './alerts-fixture';

const WAIT_MS = 15_000;
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The forms a webhook secret's key could be written in: the base64 after `whsec_`, and its bytes
 * raw, in base64url and in hex. The base64 is looked for without its padding: the embedded store
 * compresses larger documents (LZ4), which writes the `=` that every secret ends with as a
 * reference to an earlier one, so only the random part is sure to appear whole.
 */
function formsOf(secret: string): { name: string; bytes: Buffer }[] {
  const encoded = secret.slice('whsec_'.length);
  const raw = Buffer.from(encoded, 'base64');
  return [
    { name: 'base64', bytes: Buffer.from(encoded.replace(/=+$/, ''), 'latin1') },
    { name: 'raw bytes', bytes: raw },
    { name: 'base64url', bytes: Buffer.from(raw.toString('base64url'), 'latin1') },
    { name: 'hex', bytes: Buffer.from(raw.toString('hex'), 'latin1') },
  ];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * Every file under `dir` that holds one of `needles`, byte for byte: read in chunks (the stores'
 * files may be large) that overlap by a needle's length, so that no occurrence is split unseen.
 */
function filesHolding(dir: string, needles: readonly { name: string; bytes: Buffer }[]): string[] {
  const overlap = Math.max(...needles.map((needle) => needle.bytes.length)) - 1;
  const found: string[] = [];
  const buffer = Buffer.alloc(CHUNK_BYTES + overlap);
  for (const file of filesUnder(dir)) {
    const fd = openSync(file, 'r');
    try {
      let kept = 0;
      for (;;) {
        const read = readSync(fd, buffer, kept, CHUNK_BYTES, null);
        const window = buffer.subarray(0, kept + read);
        for (const needle of needles) if (window.indexOf(needle.bytes) >= 0) found.push(`${relative(dir, file)} (${needle.name})`);
        if (read === 0) break;
        kept = Math.min(overlap, window.length);
        window.copyWithin(0, window.length - kept);
      }
    } finally {
      closeSync(fd);
    }
  }
  return [...new Set(found)];
}

function verify(secret: string, webhook: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(webhook.body, webhook.headers as Record<string, string>);
}

/**
 * The acceptance check of secrets at rest: with the stack as `npm start` runs it (the notifier's
 * SECRETS_KEY made into DATA_DIR), secrets read from the API, used to sign real deliveries and
 * rotated, are nowhere in DATA_DIR once the stack has stopped: not in the stores, the JetStream
 * files, nor the logs.
 */
describe('webhook signing secrets at rest (the stack as npm start runs it)', () => {
  let dataDir: string;
  let fixture: AlertsFixture;
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'secrets-at-rest-e2e-'));
    fixture = await startAlertsFixture({}, dataDir);
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs deliveries with the secret GET /account/webhook-secret answers, before and after a rotation', async () => {
    const answer = await fixture.stack.get('/account/webhook-secret', fixture.as);
    expect(answer.status).toBe(200);
    secrets['first'] = (answer.body as { secret: string }).secret;
    secrets['development account'] = ((await fixture.stack.get('/account/webhook-secret')).body as { secret: string }).secret;

    await createSearch(fixture, { title: 'Flats in Lyon', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: fixture.receiver.url('/at-rest/matches') });
    await ingest(fixture, aSnapshot({ price: 250_000 }));
    const delivered = await fixture.receiver.waitFor((webhook) => webhook.path === '/at-rest/matches', WAIT_MS);
    expect(verify(secrets['first'], delivered)).toMatchObject({ '@type': 'Match' });

    const rotated = await fixture.stack.send('POST', '/account/webhook-secret/rotate', {}, fixture.as);
    expect(rotated.status).toBe(200);
    secrets['rotated'] = (rotated.body as { secret: string }).secret;
    const tested = await fixture.stack.get('/webhook-tester?endpoint=' + encodeURIComponent(fixture.receiver.url('/at-rest/tester')), fixture.as);
    expect(tested.body).toMatchObject({ success: true, code: 200 });
    const signedByBoth = await fixture.receiver.waitFor((webhook) => webhook.path === '/at-rest/tester', WAIT_MS);
    expect(verify(secrets['rotated'], signedByBoth)).toMatchObject({ '@type': 'Match' });
    expect(verify(secrets['first'], signedByBoth)).toMatchObject({ '@type': 'Match' });
    const dryRun = await fixture.stack.get('/webhook-tester?dryRun=true&endpoint=' + encodeURIComponent(fixture.receiver.url('/at-rest/dry')), fixture.as);
    expect((dryRun.body as WebhookDryRun).headers['webhook-signature']?.split(' ')).toHaveLength(2);
  }, 60_000);

  it('finds none of those secrets in any file under DATA_DIR once the stack has stopped, in any encoding', async () => {
    expect(Object.keys(secrets)).toEqual(['first', 'development account', 'rotated']);
    await fixture.stack.stack.stop();

    const files = filesUnder(dataDir).map((file) => relative(dataDir, file));
    // The search covers the notifier's store, JetStream's files and the logs...
    expect(files).toEqual(expect.arrayContaining(['secrets-key', 'logs/notifier.log', 'logs/gateway.log', expect.stringMatching(/^notifier\//), expect.stringMatching(/^nats\/jetstream\//)]));
    // ...and finds what is there: the notifier's sealed records, under the generated key.
    expect(filesHolding(dataDir, [{ name: 'sealed', bytes: Buffer.from('v1.k1.') }])).toEqual([expect.stringMatching(/^notifier\//)]);
    expect(readFileSync(join(dataDir, 'secrets-key'), 'utf8')).toMatch(/^k1:[A-Za-z0-9+/]{43}=\n$/);

    const leaks = Object.entries(secrets).flatMap(([which, secret]) => filesHolding(dataDir, formsOf(secret)).map((where) => `${which} secret in ${where}`));
    expect(leaks).toEqual([]);
  }, 60_000);

  it('opens the stored secrets again after a restart on the same DATA_DIR, with the key kept there', async () => {
    const restarted = await startStackFixture({}, dataDir);
    try {
      expect((await restarted.get('/account/webhook-secret', fixture.as)).body).toEqual({ secret: secrets['rotated'] });
      expect((await restarted.get('/account/webhook-secret')).body).toEqual({ secret: secrets['development account'] });
    } finally {
      await restarted.teardown();
    }
  }, 120_000);
});
