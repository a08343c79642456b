import { randomBytes, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { AlertNotification, NotificationState } from '@immo/contracts';
import { EmbeddedDocumentStore, type DocumentCollection } from '@immo/document-store';
import { startSilentSmtpServer, startSmtpCatcher, type SmtpCatcher } from '@immo/testing';
import { DeliveryDispatcher } from '../deliveries/delivery-dispatcher';
import { DELIVERIES_COLLECTION, type DeliveryDoc } from '../deliveries/delivery-records';
import type { SearchStates } from '../deliveries/search-states';
import { EndpointBreakers } from '../delivery/endpoint-breakers';
import type { GuardedHttpsClient } from '../delivery/guarded-https-client';
import { SecretBox } from '../secrets/secret-box';
import { WebhookSecrets } from '../secrets/webhook-secrets';
import { EmailBatcher, type ComposeEmail } from './email-batcher';
import { EMAIL_ITEMS_COLLECTION, newEmailItem, type EmailItemDoc } from './email-items';
import { SmtpMailer } from './smtp-mailer';
import type { SmtpOutcome } from './smtp-outcome';

const ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const SEARCH_A = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const SEARCH_B = 'a1b2c3d4-1111-4aaa-8bbb-000000000002';
const WINDOW_MS = 1_000;
const HOUR_MS = 3_600_000;

/** The message the batch's facts make: its subject counts them, its parts name each property. */
const compose: ComposeEmail = ({ searchTitle, items, unsubscribeUrl }) => ({
  subject: `${items.length} alert(s) for ${searchTitle ?? 'your search'}`,
  text: `${items.map((item) => item.propertyId).join('\n')}\n${unsubscribeUrl}`,
  html: `<p>${items.map((item) => item.propertyId).join('</p><p>')}</p><a href="${unsubscribeUrl}">unsubscribe</a>`,
});

describe('e-mail alerts: batching, SMTP, the delivery log (real SMTP server on loopback)', () => {
  let smtp: SmtpCatcher;
  let store: EmbeddedDocumentStore;
  let deliveries: DocumentCollection<DeliveryDoc>;
  let items: DocumentCollection<EmailItemDoc>;
  let nowMs: number;
  let states: Map<string, NotificationState>;
  let mailer: SmtpMailer;
  let smtpBreakers: EndpointBreakers<SmtpOutcome>;
  let dispatcher: DeliveryDispatcher;
  let batcher: EmailBatcher;
  const clock = () => nowMs;

  const state = (searchId: string, recipient: string | null, active = true): NotificationState => ({ searchId, active, endpointRecipient: null, eventEndpoint: null, notificationRecipient: recipient });

  function start(options: { maxPerHour?: number; routes?: { domain: string; url: string }[]; timeoutMs?: number } = {}): void {
    mailer = new SmtpMailer({ defaultUrl: smtp.url, routes: options.routes ?? [], from: 'Immo Alerts <alertes@immo.test>', timeoutMs: options.timeoutMs ?? 5_000 });
    smtpBreakers = new EndpointBreakers<SmtpOutcome>({ volumeThreshold: 3, resetTimeoutMs: 60_000, isUnwell: (outcome) => outcome.statusCode === null || outcome.statusCode === 421 });
    const searchStates = { of: async (searchId: string) => states.get(searchId) ?? state(searchId, null, false), forget: () => undefined } as unknown as SearchStates;
    dispatcher = new DeliveryDispatcher(
      store,
      {} as GuardedHttpsClient,
      new EndpointBreakers({}),
      new WebhookSecrets(store, new SecretBox([{ id: 'k', key: randomBytes(32) }]), 60_000),
      searchStates,
      { maxRetries: 2, retryIntervalMs: 60_000, concurrency: 16, claimMs: 30_000 },
      { endpointGone: () => undefined },
      clock,
      { serverFor: (recipient) => mailer.serverFor(recipient), send: (email) => mailer.send(email), breakers: smtpBreakers },
    );
    batcher = new EmailBatcher(store, compose, { windowMs: WINDOW_MS, maxPerRecipientPerHour: options.maxPerHour ?? 12 }, (token) => `https://api.immo.test/public/search/disable-notifications?searchToken=${token}`, (doc) => dispatcher.enqueue(doc), clock);
    dispatcher.start();
  }

  async function waitFor(notification: AlertNotification & { email: NonNullable<AlertNotification['email']> }): Promise<void> {
    await store.commit([{ collection: EMAIL_ITEMS_COLLECTION.name, upsert: newEmailItem(notification, nowMs) }]);
  }

  const notification = (searchId: string, recipient: string, kind: AlertNotification['kind'] = 'match') => ({
    id: randomUUID(),
    searchId,
    accountId: ACCOUNT_ID,
    kind,
    endpoint: null,
    propertyId: randomUUID(),
    matchId: randomUUID(),
    payload: '{"@type":"Match"}',
    createdAt: new Date(nowMs).toISOString(),
    email: { recipient, searchTitle: searchId === SEARCH_A ? 'Lyon 3e' : 'Paris 11e', unsubscribeToken: `token-${searchId.slice(-1)}` },
  });

  async function settled(predicate: (docs: DeliveryDoc[]) => boolean, timeoutMs = 10_000): Promise<DeliveryDoc[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const docs = await deliveries.find({ channel: 'email' });
      if (predicate(docs)) return docs;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(docs.map((d) => ({ status: d.status, attempts: d.attempts.length })))}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });

  afterAll(async () => {
    await smtp?.close();
  });

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    smtp.received.length = 0;
    smtp.refuse = () => null;
    nowMs = Date.now();
    store = new EmbeddedDocumentStore();
    deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    items = store.collection<EmailItemDoc>(EMAIL_ITEMS_COLLECTION);
    states = new Map([
      [SEARCH_A, state(SEARCH_A, 'ana@example.org')],
      [SEARCH_B, state(SEARCH_B, 'ana@example.org')],
    ]);
  });

  afterEach(async () => {
    await batcher?.stop();
    await dispatcher?.stop();
    smtpBreakers?.shutdown();
    mailer?.close();
    await store.close();
    jest.restoreAllMocks();
  });

  it('holds the facts of one recipient and search for the batch window, then sends them as one e-mail with one-click unsubscribe headers, logged as delivered', async () => {
    start();
    const facts = [notification(SEARCH_A, 'ana@example.org'), notification(SEARCH_A, 'Ana@Example.org', 'ad.update.price'), notification(SEARCH_A, 'ana@example.org')];
    for (const fact of facts) await waitFor(fact);
    await batcher.pass();
    expect(await deliveries.find({ channel: 'email' })).toEqual([]);

    nowMs += WINDOW_MS;
    await batcher.pass();
    const [email] = await smtp.waitFor(1, 5_000);
    const parsed = email?.parsed;
    expect(email?.to).toBe('ana@example.org');
    expect(parsed?.subject).toBe('3 alert(s) for Lyon 3e');
    for (const fact of facts) {
      expect(parsed?.text).toContain(fact.propertyId);
      expect(parsed?.html).toContain(fact.propertyId);
    }
    const unsubscribe = 'https://api.immo.test/public/search/disable-notifications?searchToken=token-1';
    // RFC 8058: the HTTPS link in List-Unsubscribe, and the one-click POST announced.
    const headers = (email?.raw ?? '').split(/\r?\n\r?\n/)[0]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(headers).toContain(`List-Unsubscribe: <${unsubscribe}>`);
    expect(headers).toMatch(/^Auto-Submitted: auto-generated$/m);
    const [logged] = await settled((docs) => docs.length === 1 && docs[0]?.status === 'delivered');
    expect(parsed?.messageId).toBe(`<${logged?._id}@immo-alerts>`);
    expect(logged).toMatchObject({ endpoint: 'mailto:ana@example.org', searchId: SEARCH_A, notificationIds: facts.map((fact) => fact.id), attempts: [expect.objectContaining({ statusCode: 250, error: null })] });
    expect((await items.find({ emailId: logged?._id ?? '' })).length).toBe(3);
  });

  it('sends one e-mail per search, and at most the hourly cap to one address: the rest waits for the next hour, nothing is dropped', async () => {
    start({ maxPerHour: 2 });
    await waitFor(notification(SEARCH_A, 'ana@example.org'));
    await waitFor(notification(SEARCH_B, 'ana@example.org'));
    nowMs += WINDOW_MS;
    await batcher.pass();
    expect((await smtp.waitFor(2, 5_000)).map((email) => email.parsed.subject).sort()).toEqual(['1 alert(s) for Lyon 3e', '1 alert(s) for Paris 11e']);
    // Recorded as delivered: a later e-mail of the search waits while an earlier one is pending (and this clock stands still).
    await settled((docs) => docs.length === 2 && docs.every((doc) => doc.status === 'delivered'));

    // A third batch within the hour: held back by the cap.
    await waitFor(notification(SEARCH_A, 'ana@example.org'));
    nowMs += WINDOW_MS;
    await batcher.pass();
    expect(batcher.counters.heldByCap).toBe(1);
    expect(await items.count({ emailId: null })).toBe(1);

    nowMs += HOUR_MS;
    await batcher.pass();
    await smtp.waitFor(3, 5_000);
    expect(await items.count({ emailId: null })).toBe(0);
  });

  it('tries again after a temporary refusal (4xx) with the same Message-ID, and fails at once on a permanent one (5xx), showing why', async () => {
    start();
    let refusals = 1;
    smtp.refuse = (recipient) => (recipient.startsWith('gone') ? { code: 550, message: 'no such mailbox' } : refusals-- > 0 ? { code: 451, message: 'greylisted, try later' } : null);
    states.set(SEARCH_B, state(SEARCH_B, 'gone@example.org'));
    await waitFor(notification(SEARCH_A, 'ana@example.org'));
    await waitFor(notification(SEARCH_B, 'gone@example.org'));
    nowMs += WINDOW_MS;
    await batcher.pass();
    const afterFirst = await settled((docs) => docs.length === 2 && docs.every((doc) => doc.attempts.length === 1 && !doc.attemptStartedAt));
    const byRecipient = (docs: DeliveryDoc[], recipient: string) => docs.find((doc) => doc.endpoint === `mailto:${recipient}`) as DeliveryDoc;
    expect(byRecipient(afterFirst, 'ana@example.org')).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ statusCode: 451 })], nextAttemptAtMs: nowMs + 60_000 });
    expect(byRecipient(afterFirst, 'gone@example.org')).toMatchObject({ status: 'failed', failure: expect.stringContaining('SMTP 550') });

    nowMs += 60_000;
    const [email] = await smtp.waitFor(1, 5_000);
    const final = await settled((docs) => byRecipient(docs, 'ana@example.org').status === 'delivered');
    expect(email?.parsed.messageId).toBe(`<${byRecipient(final, 'ana@example.org')._id}@immo-alerts>`);
    expect(byRecipient(final, 'ana@example.org').attempts.map((attempt) => attempt.statusCode)).toEqual([451, 250]);
    expect(smtp.received.filter((received) => received.to === 'gone@example.org')).toEqual([]);
  });

  it('sends nothing for a search deleted, turned off or given another address meanwhile: the e-mail is logged as cancelled', async () => {
    start();
    states.set(SEARCH_A, state(SEARCH_A, 'ana@example.org', false));
    states.set(SEARCH_B, state(SEARCH_B, 'someone.else@example.org'));
    await waitFor(notification(SEARCH_A, 'ana@example.org'));
    await waitFor(notification(SEARCH_B, 'ana@example.org'));
    nowMs += WINDOW_MS;
    await batcher.pass();
    const docs = await settled((found) => found.length === 2 && found.every((doc) => doc.status === 'failed'));
    expect(docs.map((doc) => doc.failure)).toEqual([expect.stringContaining('cancelled'), expect.stringContaining('cancelled')]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.received).toEqual([]);
  });

  it('opens the breaker of an SMTP server that never answers, and the e-mails of other servers are not held up', async () => {
    const silent = await startSilentSmtpServer();
    try {
      start({ routes: [{ domain: 'stuck.example', url: silent.url }], timeoutMs: 300 });
      const recipients = Array.from({ length: 6 }, (_, i) => `user${i}@stuck.example`);
      for (const [i, recipient] of recipients.entries()) {
        const searchId = `a1b2c3d4-1111-4aaa-8bbb-${String(100 + i).padStart(12, '0')}`;
        states.set(searchId, state(searchId, recipient));
        await waitFor(notification(searchId, recipient));
      }
      await waitFor(notification(SEARCH_A, 'ana@example.org'));
      nowMs += WINDOW_MS;
      const started = Date.now();
      await batcher.pass();
      await smtp.waitFor(1, 5_000, 'ana@example.org');
      // Not behind the stuck server's timeouts.
      expect(Date.now() - started).toBeLessThan(1_000);
      await settled((docs) => docs.filter((doc) => doc.endpoint?.endsWith('@stuck.example')).every((doc) => doc.attempts.length >= 1 || doc.nextAttemptAtMs !== nowMs));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(smtpBreakers.state(mailer.serverFor('user0@stuck.example'))).toBe('open');
      expect(smtpBreakers.state(mailer.serverFor('ana@example.org'))).toBe('closed');
    } finally {
      await silent.close();
    }
  });

  it('forms one e-mail of a batch when two replicas sharing the ledger form it at the same time', async () => {
    start();
    const other = new EmailBatcher(store, compose, { windowMs: WINDOW_MS, maxPerRecipientPerHour: 12 }, (token) => `https://api.immo.test/u?searchToken=${token}`, (doc) => dispatcher.enqueue(doc), clock);
    for (let i = 0; i < 3; i++) await waitFor(notification(SEARCH_A, 'ana@example.org'));
    nowMs += WINDOW_MS;
    await Promise.all([batcher.pass(), other.pass()]);
    expect(batcher.counters.formed + other.counters.formed).toBe(1);
    expect(batcher.counters.conflicts + other.counters.conflicts).toBe(1);
    await smtp.waitFor(1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.received).toHaveLength(1);
  });

  it('after a crash mid-send, the next holder sends the e-mail again under the same Message-ID and lists the lost attempt as interrupted; its items stay with it', async () => {
    start();
    await waitFor(notification(SEARCH_A, 'ana@example.org'));
    nowMs += WINDOW_MS;
    // The replica that formed the e-mail died as it sent it: its claim is left, and the message may have gone.
    await dispatcher.stop();
    await batcher.pass();
    const [formed] = await deliveries.find({ channel: 'email' });
    await deliveries.upsert({ ...(formed as DeliveryDoc), revision: (formed as DeliveryDoc).revision + 1, attemptStartedAt: new Date(nowMs).toISOString(), nextAttemptAtMs: nowMs + 30_000 });
    nowMs += 30_000;
    dispatcher.start();
    const [email] = await smtp.waitFor(1, 5_000);
    const [logged] = await settled((docs) => docs[0]?.status === 'delivered');
    expect(email?.parsed.messageId).toBe(`<${formed?._id}@immo-alerts>`);
    expect(logged?.attempts.map((attempt) => attempt.error?.startsWith('interrupted') ?? false)).toEqual([true, false]);
    expect(await items.count({ emailId: formed?._id ?? '' })).toBe(1);
  });
});
