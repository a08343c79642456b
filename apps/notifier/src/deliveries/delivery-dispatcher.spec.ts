import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import type { AlertNotification, NotificationState } from '@immo/contracts';
import { EmbeddedDocumentStore, type DocumentCollection } from '@immo/document-store';
import { EndpointBreakers } from '../delivery/endpoint-breakers';
import type { GuardedHttpsClient, PostOutcome } from '../delivery/guarded-https-client';
import { SecretBox } from '../secrets/secret-box';
import { WEBHOOK_SECRETS_COLLECTION, WebhookSecrets } from '../secrets/webhook-secrets';
import { DeliveryDispatcher, type DispatchPolicy, type DispatcherHooks } from './delivery-dispatcher';
import { DELIVERIES_COLLECTION, newDelivery, type DeliveryDoc } from './delivery-records';
import type { SearchStates } from './search-states';

const ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const PROPERTY_ID = '0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const MATCH_ID = '5e0c2a8b-7d41-5f3e-9a6c-1b2d3e4f5a6b';
const MATCH_ENDPOINT = 'https://hooks.example.com/matches';
const EVENT_ENDPOINT = 'https://events.example.com/events';

const POLICY: DispatchPolicy = { maxRetries: 2, retryIntervalMs: 60_000, concurrency: 4, claimMs: 10_000 };
/** The dispatcher scans for due deliveries this often. */
const SCAN_MS = 500;
const BREAKER_DEFER_MS = 5_000;
const UNKNOWN_STATE_DEFER_MS = 2_000;

let counter = 0;
function aNotification(overrides: Partial<AlertNotification> = {}): AlertNotification {
  counter++;
  const id = `c0ffee00-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  return {
    id,
    searchId: SEARCH_ID,
    accountId: ACCOUNT_ID,
    kind: 'match',
    endpoint: MATCH_ENDPOINT,
    propertyId: PROPERTY_ID,
    matchId: MATCH_ID,
    payload: JSON.stringify({ '@type': 'Match', '@id': `/matches/${MATCH_ID}`, notification: id, city: 'Lyon 3e' }),
    createdAt: '2026-03-05T08:00:00.000Z',
    email: null,
    ...overrides,
  };
}

const answered = (statusCode: number): PostOutcome => ({ statusCode, durationMs: 12.4, error: null, retryAfterMs: null });

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

/** Polls until `read` answers something `accept` takes (the dispatcher works in the background). */
async function eventually<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > until) throw new Error(`not reached within ${timeoutMs} ms; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeliveryDispatcher', () => {
  let store: EmbeddedDocumentStore;
  let deliveries: DocumentCollection<DeliveryDoc>;
  let post: jest.Mock<Promise<PostOutcome>, [string, string, Record<string, string>]>;
  let breakers: EndpointBreakers;
  let secrets: WebhookSecrets;
  let state: NotificationState;
  let searchStates: { of: jest.Mock<Promise<NotificationState>, [string]>; forget: jest.Mock<void, [string]> };
  let hooks: { endpointGone: jest.Mock<void, [string, string]> };
  let nowMs: number;
  let dispatcher: DeliveryDispatcher;

  const clock = () => nowMs;
  const stored = async (id: string) => (await deliveries.findById(id)) as DeliveryDoc;
  const attemptsOf = async (id: string) => (await stored(id)).attempts.length;

  /** Records a delivery as the intake does, and hands it to the dispatcher. */
  async function recordAndEnqueue(notification = aNotification()): Promise<DeliveryDoc> {
    const doc = newDelivery(notification, counter, nowMs);
    await deliveries.upsert(doc);
    dispatcher.enqueue(doc);
    return doc;
  }

  function verify(body: string, headers: Record<string, string>, secret: string): unknown {
    return new Webhook(secret).verify(body, headers);
  }

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    // Real time, so that standardwebhooks accepts the signed timestamps; the dispatcher's clock
    // is moved by hand to make retries due.
    nowMs = Date.now();
    store = new EmbeddedDocumentStore();
    deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    post = jest.fn(async (_url: string, _body: string, _headers: Record<string, string>) => answered(200));
    breakers = new EndpointBreakers({ volumeThreshold: 10, resetTimeoutMs: 60_000 });
    secrets = new WebhookSecrets(store, new SecretBox([{ id: 'test', key: randomBytes(32) }]), 24 * 3600 * 1000, clock);
    state = { searchId: SEARCH_ID, active: true, endpointRecipient: MATCH_ENDPOINT, eventEndpoint: EVENT_ENDPOINT, notificationRecipient: null };
    searchStates = { of: jest.fn(async (_searchId: string) => state), forget: jest.fn() };
    hooks = { endpointGone: jest.fn() };
    dispatcher = new DeliveryDispatcher(
      store,
      { post } as unknown as GuardedHttpsClient,
      breakers,
      secrets,
      searchStates as unknown as SearchStates,
      POLICY,
      hooks satisfies DispatcherHooks,
      clock,
    );
    dispatcher.start();
  });

  afterEach(async () => {
    await dispatcher.stop();
    breakers.shutdown();
    await store.close();
    jest.restoreAllMocks();
  });

  describe('given a pending delivery', () => {
    it('when the receiver answers 200, then it is delivered with one attempt recorded', async () => {
      const doc = await recordAndEnqueue();

      const delivered = await eventually(() => stored(doc._id), (d) => d.status !== 'pending');

      expect(delivered).toMatchObject({
        status: 'delivered',
        nextAttemptAtMs: null,
        failure: null,
        attempts: [{ at: new Date(nowMs).toISOString(), statusCode: 200, durationMs: 12, error: null }],
      });
      expect(post).toHaveBeenCalledTimes(1);
      expect(dispatcher.counters).toMatchObject({ delivered: 1, failed: 0, retried: 0 });
    });

    it('when it is attempted, then the exact payload is POSTed to its endpoint, signed so that standardwebhooks verifies it', async () => {
      const doc = await recordAndEnqueue();
      await eventually(() => post.mock.calls.length, (calls) => calls === 1);

      const [endpoint, body, headers] = post.mock.calls[0]!;
      expect(endpoint).toBe(MATCH_ENDPOINT);
      expect(body).toBe(doc.payload);
      expect(headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': doc._id, 'webhook-timestamp': String(Math.floor(nowMs / 1000)) });
      expect(verify(body, headers, await secrets.current(ACCOUNT_ID))).toEqual(JSON.parse(doc.payload));
    });

    it('when it was left pending by a crash (never handed over), then the scan finds it and delivers it', async () => {
      const doc = newDelivery(aNotification(), 1, nowMs - 30_000);
      await deliveries.upsert(doc);

      const delivered = await eventually(() => stored(doc._id), (d) => d.status !== 'pending', SCAN_MS * 3);

      expect(delivered.status).toBe('delivered');
      expect(post).toHaveBeenCalledTimes(1);
    });

    it('when it is an advert event for the search’s eventEndpoint, then it is delivered there', async () => {
      const doc = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT }));

      expect((await eventually(() => stored(doc._id), (d) => d.status !== 'pending')).status).toBe('delivered');
      expect(post.mock.calls[0]?.[0]).toBe(EVENT_ENDPOINT);
    });

    it('when it is handed over twice while in flight, then it is attempted once', async () => {
      const answer = deferred<PostOutcome>();
      post.mockImplementationOnce(() => answer.promise);
      const doc = await recordAndEnqueue();
      await eventually(() => post.mock.calls.length, (calls) => calls === 1);

      dispatcher.enqueue(doc);
      dispatcher.enqueue(doc);
      answer.resolve(answered(204));

      await eventually(() => stored(doc._id), (d) => d.status === 'delivered');
      expect(post).toHaveBeenCalledTimes(1);
      expect(await attemptsOf(doc._id)).toBe(1);
    });
  });

  describe('given a receiver that answers 500', () => {
    it('when attempted, then a retry is scheduled one interval later and it is not attempted before then', async () => {
      post.mockResolvedValue(answered(500));
      const doc = await recordAndEnqueue();

      const retrying = await eventually(() => stored(doc._id), (d) => d.attempts.length === 1);

      expect(retrying).toMatchObject({ status: 'pending', nextAttemptAtMs: nowMs + POLICY.retryIntervalMs, attempts: [{ statusCode: 500, error: null }] });
      expect(dispatcher.counters.retried).toBe(1);
      // Scans run meanwhile; the retry is not due.
      await pause(SCAN_MS * 1.5);
      expect(post).toHaveBeenCalledTimes(1);
    });

    it('when the retry is due, then the scan attempts it again with the same webhook-id and a valid signature', async () => {
      post.mockResolvedValueOnce(answered(500)).mockResolvedValue(answered(200));
      const doc = await recordAndEnqueue();
      await eventually(() => stored(doc._id), (d) => d.attempts.length === 1);

      const firstAttemptAt = nowMs;
      nowMs += POLICY.retryIntervalMs;
      const delivered = await eventually(() => stored(doc._id), (d) => d.status === 'delivered', SCAN_MS * 3);

      expect(post).toHaveBeenCalledTimes(2);
      const [first, second] = post.mock.calls.map(([, body, headers]) => ({ body, headers }));
      expect(second!.headers['webhook-id']).toBe(doc._id);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(second!.headers['webhook-timestamp']).toBe(String(Math.floor(nowMs / 1000)));
      expect(second!.body).toBe(doc.payload);
      expect(verify(second!.body, second!.headers, await secrets.current(ACCOUNT_ID))).toEqual(JSON.parse(doc.payload));
      expect(delivered.attempts.map((a) => [a.at, a.statusCode])).toEqual([
        [new Date(firstAttemptAt).toISOString(), 500],
        [new Date(nowMs).toISOString(), 200],
      ]);
    });

    it('when every one of its maxRetries + 1 attempts fails, then it is failed, kept with its attempts, and not attempted again', async () => {
      post.mockResolvedValue(answered(500));
      const doc = await recordAndEnqueue();

      for (let attempt = 1; attempt <= POLICY.maxRetries; attempt++) {
        await eventually(() => attemptsOf(doc._id), (n) => n === attempt, SCAN_MS * 3);
        nowMs += POLICY.retryIntervalMs;
      }
      const failed = await eventually(() => stored(doc._id), (d) => d.status !== 'pending', SCAN_MS * 3);

      expect(failed).toMatchObject({ status: 'failed', nextAttemptAtMs: null, failure: 'all 3 attempts failed, the last with HTTP 500' });
      expect(failed.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500]);
      expect(post).toHaveBeenCalledTimes(POLICY.maxRetries + 1);
      expect(dispatcher.counters).toMatchObject({ failed: 1, retried: POLICY.maxRetries, delivered: 0 });

      nowMs += POLICY.retryIntervalMs;
      await pause(SCAN_MS * 1.5);
      expect(post).toHaveBeenCalledTimes(POLICY.maxRetries + 1);
      expect((await stored(doc._id)).status).toBe('failed');
    });
  });

  describe('given a receiver that answers 410 Gone', () => {
    it('when attempted, then the delivery fails at once, the search is forgotten and endpointGone is called', async () => {
      post.mockResolvedValue(answered(410));
      const doc = await recordAndEnqueue();

      const failed = await eventually(() => stored(doc._id), (d) => d.status !== 'pending');

      expect(failed).toMatchObject({ status: 'failed', nextAttemptAtMs: null, attempts: [{ statusCode: 410 }] });
      expect(failed.failure).toContain('410 Gone');
      expect(hooks.endpointGone).toHaveBeenCalledWith(SEARCH_ID, MATCH_ENDPOINT);
      expect(searchStates.forget).toHaveBeenCalledWith(SEARCH_ID);
      expect(post).toHaveBeenCalledTimes(1);
    });
  });

  describe('given a search that no longer wants the delivery', () => {
    it.each([
      ['deleted or with notifications off', { active: false }],
      ['whose endpointRecipient was replaced', { endpointRecipient: 'https://elsewhere.example.com/hook' }],
      ['whose endpointRecipient was removed', { endpointRecipient: null }],
    ])('when a match delivery of a search %s is due, then it is cancelled without calling the receiver', async (_case, change) => {
      state = { ...state, ...change };
      const doc = await recordAndEnqueue();

      const cancelled = await eventually(() => stored(doc._id), (d) => d.status !== 'pending');

      expect(cancelled).toMatchObject({ status: 'failed', nextAttemptAtMs: null, attempts: [] });
      expect(cancelled.failure).toMatch(/^cancelled/);
      expect(post).not.toHaveBeenCalled();
      expect(searchStates.of).toHaveBeenCalledWith(SEARCH_ID);
      expect(dispatcher.counters.cancelled).toBe(1);
    });

    it('when an event delivery’s eventEndpoint was replaced, then it is cancelled even though endpointRecipient is the same URL', async () => {
      state = { ...state, endpointRecipient: EVENT_ENDPOINT, eventEndpoint: 'https://elsewhere.example.com/events' };
      const doc = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT }));

      expect((await eventually(() => stored(doc._id), (d) => d.status !== 'pending')).failure).toMatch(/^cancelled/);
      expect(post).not.toHaveBeenCalled();
    });
  });

  describe('given the searches service cannot say whether the search still wants it', () => {
    it('when due, then it is deferred shortly without an attempt', async () => {
      searchStates.of.mockRejectedValue(new Error('no responders'));
      const doc = await recordAndEnqueue();

      // Revision 2 is the claim, 3 what the holder decided.
      const deferredDoc = await eventually(() => stored(doc._id), (d) => d.revision > 2);

      expect(deferredDoc).toMatchObject({ status: 'pending', attempts: [], nextAttemptAtMs: nowMs + UNKNOWN_STATE_DEFER_MS });
      expect(post).not.toHaveBeenCalled();
    });
  });

  describe('given the account’s secret is sealed under a key the notifier no longer holds', () => {
    it('when due, then the delivery is deferred unsigned and unsent, without an attempt, until its secret can be read', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      await new WebhookSecrets(store, new SecretBox([{ id: 'retired', key: randomBytes(32) }]), 24 * 3600 * 1000, clock).current(ACCOUNT_ID);

      const doc = await recordAndEnqueue();
      // Revision 2 is the claim, 3 what the holder decided.
      const deferredDoc = await eventually(() => stored(doc._id), (d) => d.revision > 2);

      expect(deferredDoc).toMatchObject({ status: 'pending', attempts: [], attemptStartedAt: null, nextAttemptAtMs: nowMs + 60_000 });
      expect(post).not.toHaveBeenCalled();
      expect(error).toHaveBeenCalledWith(expect.stringContaining(`the webhook secret of account ${ACCOUNT_ID} cannot be read (sealed under key "retired"`));

      // The record readable again (here: made afresh), the delivery goes out when due, signed.
      await store.collection(WEBHOOK_SECRETS_COLLECTION).deleteById(ACCOUNT_ID);
      nowMs += 60_000;
      expect((await eventually(() => stored(doc._id), (d) => d.status !== 'pending', SCAN_MS * 4)).status).toBe('delivered');
      const [, body, headers] = post.mock.calls[0]!;
      expect(verify(body, headers, await secrets.current(ACCOUNT_ID))).toEqual(JSON.parse(doc.payload));
    });
  });

  describe('given the host’s circuit breaker is open', () => {
    it('when due, then the delivery is deferred without an attempt being recorded or the receiver called', async () => {
      breakers.shutdown();
      breakers = new EndpointBreakers({ volumeThreshold: 1, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 });
      await breakers.run('hooks.example.com', async () => answered(503));
      expect(breakers.state('hooks.example.com')).toBe('open');
      await dispatcher.stop();
      dispatcher = new DeliveryDispatcher(store, { post } as unknown as GuardedHttpsClient, breakers, secrets, searchStates as unknown as SearchStates, POLICY, hooks, clock);
      dispatcher.start();

      const doc = await recordAndEnqueue();
      // Revision 2 is the claim, 3 what the holder decided.
      const deferredDoc = await eventually(() => stored(doc._id), (d) => d.revision > 2);

      expect(deferredDoc).toMatchObject({ status: 'pending', attempts: [], nextAttemptAtMs: nowMs + BREAKER_DEFER_MS });
      expect(post).not.toHaveBeenCalled();
      expect(dispatcher.counters).toMatchObject({ deferred: 1, retried: 0, failed: 0 });
    });
  });

  describe('given two deliveries about one property to one endpoint', () => {
    it('when the first is slow, then the second waits for it: the receiver hears them in the order they were decided', async () => {
      const first = deferred<PostOutcome>();
      post.mockImplementationOnce(() => first.promise);
      const older = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT, payload: '{"price":300000}' }));
      await eventually(() => post.mock.calls.length, (calls) => calls === 1);
      const newer = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT, payload: '{"price":290000}' }));
      // Past two scans: still only the first was sent.
      await pause(SCAN_MS * 2.5);
      expect(post.mock.calls.map((call) => call[1])).toEqual(['{"price":300000}']);

      first.resolve(answered(200));
      await eventually(() => stored(older._id), (d) => d.status === 'delivered');
      // Its wait (a quarter of a second) is over.
      nowMs += 1000;
      await eventually(() => stored(newer._id), (d) => d.status === 'delivered', SCAN_MS * 6);
      expect(post.mock.calls.map((call) => call[1])).toEqual(['{"price":300000}', '{"price":290000}']);
      expect((await stored(older._id)).status).toBe('delivered');
    });

    it('when the first waits for a retry, then the second is not sent before that retry', async () => {
      post.mockImplementationOnce(async () => answered(500));
      const older = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT, payload: '{"price":300000}' }));
      await eventually(() => stored(older._id), (d) => d.attempts.length === 1);
      const newer = await recordAndEnqueue(aNotification({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT, payload: '{"price":290000}' }));
      const deferredTo = await eventually(() => stored(newer._id), (d) => (d.nextAttemptAtMs ?? 0) > nowMs + 1000);
      expect(deferredTo.nextAttemptAtMs).toBeGreaterThanOrEqual((await stored(older._id)).nextAttemptAtMs as number);
      expect(post).toHaveBeenCalledTimes(1);
    });
  });

  describe('given a second replica sharing the ledger', () => {
    let otherPost: jest.Mock<Promise<PostOutcome>, [string, string, Record<string, string>]>;
    let other: DeliveryDispatcher;
    let otherBreakers: EndpointBreakers;

    beforeEach(() => {
      otherPost = jest.fn(async (_url: string, _body: string, _headers: Record<string, string>) => answered(200));
      otherBreakers = new EndpointBreakers({ volumeThreshold: 10, resetTimeoutMs: 60_000 });
      other = new DeliveryDispatcher(store, { post: otherPost } as unknown as GuardedHttpsClient, otherBreakers, secrets, searchStates as unknown as SearchStates, POLICY, hooks, clock);
      other.start();
    });

    afterEach(async () => {
      await other.stop();
      otherBreakers.shutdown();
    });

    it('when both are handed a delivery while the receiver is slow, then it is POSTed once and one attempt is recorded', async () => {
      const answer = deferred<PostOutcome>();
      post.mockImplementation(() => answer.promise);
      otherPost.mockImplementation(() => answer.promise);
      const doc = newDelivery(aNotification(), counter, nowMs);
      await deliveries.upsert(doc);
      dispatcher.enqueue(doc);
      other.enqueue(doc);
      await eventually(() => post.mock.calls.length + otherPost.mock.calls.length, (calls) => calls === 1);
      // Past two scans of each: the claim keeps the other replica off it.
      await pause(SCAN_MS * 2.5);
      answer.resolve(answered(200));

      const delivered = await eventually(() => stored(doc._id), (d) => d.status === 'delivered');
      expect(post.mock.calls.length + otherPost.mock.calls.length).toBe(1);
      expect(delivered.attempts).toHaveLength(1);
    });

    it('when the holder of a claim stalls past it (or died), then the other lists its attempt as interrupted, takes the delivery over with the same webhook-id, and a stalled attempt that ends takes its own place in the history', async () => {
      const stalled = deferred<PostOutcome>();
      post.mockImplementationOnce(() => stalled.promise);
      await other.stop();
      const doc = await recordAndEnqueue();
      await eventually(() => post.mock.calls.length, (calls) => calls === 1);
      other.start();
      await pause(SCAN_MS * 2);
      expect(otherPost).not.toHaveBeenCalled();

      nowMs += POLICY.claimMs + 1;
      const delivered = await eventually(() => stored(doc._id), (d) => d.status === 'delivered', SCAN_MS * 4);
      expect(otherPost).toHaveBeenCalledTimes(1);
      expect(otherPost.mock.calls[0]?.[2]['webhook-id']).toBe(post.mock.calls[0]?.[2]['webhook-id']);
      // The receiver may have had the first attempt: the log says so rather than hiding it.
      expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([null, 200]);
      expect(delivered.attempts[0]?.error).toMatch(/^interrupted: .*may have received it/);
      expect(delivered.attemptStartedAt).toBeNull();

      stalled.resolve(answered(503));
      const withBoth = await eventually(() => stored(doc._id), (d) => d.attempts.some((attempt) => attempt.statusCode === 503));
      expect(withBoth.status).toBe('delivered');
      expect(withBoth.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 200]);
    });
  });

  describe('stop', () => {
    it('given an attempt in flight, when stopped, then stop waits for its outcome to be recorded', async () => {
      const answer = deferred<PostOutcome>();
      post.mockImplementationOnce(() => answer.promise);
      const doc = await recordAndEnqueue();
      await eventually(() => post.mock.calls.length, (calls) => calls === 1);
      expect(dispatcher.inFlight).toBe(1);

      let stopped = false;
      const stopping = dispatcher.stop().then(() => (stopped = true));
      await pause(50);
      expect(stopped).toBe(false);

      answer.resolve(answered(200));
      await stopping;

      expect((await stored(doc._id)).status).toBe('delivered');
      expect(dispatcher.inFlight).toBe(0);
    });

    it('given a stopped dispatcher, when a delivery is handed over or becomes due, then nothing is attempted', async () => {
      await dispatcher.stop();

      const doc = await recordAndEnqueue();
      await pause(SCAN_MS * 1.5);

      expect(post).not.toHaveBeenCalled();
      expect((await stored(doc._id)).status).toBe('pending');
    });
  });
});
