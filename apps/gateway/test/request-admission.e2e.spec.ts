/**
 * No work before authentication (whole stack over HTTP): the key is checked before the body is
 * read, each route reads its body up to its own limit, and keys whose id was never issued are
 * refused without a request to the searches service, while a key issued a moment ago works on
 * every gateway.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { SEARCHES_SUBJECTS, type CreatedAccount, type IngestAdvertsReply } from '@immo/contracts';
import { ROOT, startStackFixture, type StackFixture } from '@immo/stack';
import { freePort } from '@immo/testing';
import { malformedJson, sendWithBody } from '../src/http/test-double/send-with-body';

const MB = 1_000_000;

/** A value of one sample of a gateway metric, or null while it is not reported. */
async function metric(baseUrl: string, name: string): Promise<number | null> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? null : Number(line.slice(name.length + 1));
}

/** Resolves once the gateway has loaded the issued key ids (its gauge is reported). */
async function keyIdsLoaded(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await metric(baseUrl, 'gateway_issued_key_ids').catch(() => null)) === null) {
    if (Date.now() > deadline) throw new Error(`${baseUrl} did not load the issued key ids`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `imk_<12 hex>_<43 base64url>`: shaped like an account key, id never issued (48 random bits). */
const wellFormedGuess = () => `imk_${randomBytes(6).toString('hex')}_${randomBytes(32).toString('base64url')}`;

describe('no work before authentication (whole stack over HTTP)', () => {
  let fixture: StackFixture;
  let nats: NatsConnection;
  /** Key lookups the gateways asked the searches service for, seen on the subject. */
  let lookups = 0;

  beforeAll(async () => {
    fixture = await startStackFixture();
    // As the searches service: a plain subscription next to its queue group sees every lookup sent to it.
    nats = await connect(fixture.stack.natsConnectOptions('searches'));
    nats.subscribe(SEARCHES_SUBJECTS.keyById, { callback: () => lookups++ });
    await nats.flush();
    await keyIdsLoaded(fixture.stack.baseUrl);
  }, 120_000);

  afterAll(async () => {
    await nats?.drain();
    await fixture?.teardown();
  });

  const base = () => fixture.stack.baseUrl;
  const newAccountKey = async (): Promise<string> => {
    const created = await fixture.send('POST', '/admin/accounts', { name: `admission ${Date.now()}` }, { 'X-API-KEY': fixture.stack.adminApiKey });
    expect(created.status).toBe(201);
    return (created.body as CreatedAccount).apiKey;
  };

  it('answers a 4 MB malformed body without a key 401 at once, unread (well under 500 ms; the target is 50 ms)', async () => {
    const body = malformedJson(4 * MB);
    const timings: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await sendWithBody(base(), 'POST', '/searches', {}, body);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ '@type': 'hydra:Error', status: 401 });
      timings.push(answer.elapsedMs);
    }
    expect(Math.max(...timings)).toBeLessThan(500);
  });

  it('answers 401 to a wrong key, or a well-formed key never issued, with a malformed body: never 400 or 413', async () => {
    for (const key of ['wrong', wellFormedGuess()]) {
      const answer = await sendWithBody(base(), 'POST', '/searches', { 'X-API-KEY': key }, malformedJson(4 * MB));
      expect({ key, status: answer.status }).toEqual({ key, status: 401 });
    }
  });

  it('answers 413 to a valid key sending 100 KiB to /searches, without parsing it (a malformed body would be a 400)', async () => {
    const answer = await sendWithBody(base(), 'POST', '/searches', { 'X-API-KEY': fixture.stack.apiKey }, malformedJson(100 * 1024));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, detail: expect.stringContaining('at most 64 KiB') });
  });

  it('takes a 4 MB ingestion body from the admin key, and answers 403 to another key sending one', async () => {
    const example = JSON.parse(readFileSync(join(ROOT, 'libs/contracts/src/listings/advert-snapshot.example.json'), 'utf8')) as Record<string, unknown>;
    delete example['$comment'];
    const site = `e2e-admission-${Date.now().toString(36)}`;
    const batch = [{ ...example, site, reference: 'BIG-BODY', url: `https://${site}.example/annonces/BIG-BODY` }];
    // Whitespace is JSON: a small batch carried in a 4 MB body, read and parsed whole.
    const body = `${JSON.stringify(batch)}${' '.repeat(4 * MB)}`;
    const admin = await sendWithBody(base(), 'POST', '/admin/adverts', { 'X-API-KEY': fixture.stack.adminApiKey }, body);
    expect(admin.status).toBe(200);
    expect((JSON.parse(admin.body) as IngestAdvertsReply).results[0]).toMatchObject({ status: 'accepted' });
    const other = await sendWithBody(base(), 'POST', '/admin/adverts', { 'X-API-KEY': fixture.stack.apiKey }, body);
    expect(other.status).toBe(403);
  });

  it('refuses 200 well-formed keys never issued without one key lookup, and still looks up a key just issued', async () => {
    const avoidedBefore = (await metric(base(), 'gateway_key_lookups_avoided_total')) ?? 0;
    const before = lookups;
    for (let i = 0; i < 200; i++) {
      const answer = await fetch(`${base()}/searches`, { headers: { 'X-API-KEY': wellFormedGuess() } });
      expect(answer.status).toBe(401);
    }
    await nats.flush();
    expect(lookups - before).toBe(0);
    expect(await metric(base(), 'gateway_key_lookups_avoided_total')).toBe(avoidedBefore + 200);
    // The count is real: a key just issued (not cached yet) is looked up, once.
    const key = await newAccountKey();
    expect((await fetch(`${base()}/searches`, { headers: { 'X-API-KEY': key } })).status).toBe(200);
    await nats.flush();
    expect(lookups - before).toBe(1);
  });

  it('accepts a key issued through one gateway at once on another', async () => {
    const port = await freePort();
    await fixture.stack.startReplica('gateway', 'gateway-2', { PORT: String(port) });
    const second = `http://127.0.0.1:${port}`;
    await keyIdsLoaded(second);
    for (let i = 0; i < 10; i++) {
      const key = await newAccountKey();
      const answer = await fetch(`${second}/searches`, { headers: { 'X-API-KEY': key } });
      expect({ attempt: i, status: answer.status }).toEqual({ attempt: i, status: 200 });
    }
  }, 90_000);
});
