import { Webhook } from 'standardwebhooks';
import type { DeliveryView, EventPayload, MatchPayload, SearchRecord } from '@immo/contracts';
import { asParisTime, type ReceivedWebhook } from '@immo/testing';
import { aSnapshot, createSearch, eventually, ingest, openSse, recrawl, startAlertsFixture, RETRY_INTERVAL_MS, type AlertsFixture } from './alerts-fixture';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number };
type Problem = { status: number; violations?: { propertyPath: string; message: string }[] };

const WAIT_MS = 15_000;

/** standardwebhooks verifies what the receiver got: id, timestamp and signature over the body. */
function verify(secret: string, webhook: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(webhook.body, webhook.headers as Record<string, string>);
}

describe('alerts through the gateway: matches, advert events, webhooks, tester, live stream', () => {
  let fixture: AlertsFixture;
  let secret: string;
  const url = (path: string) => fixture.receiver.url(path);
  const bodyOf = <T>(webhook: ReceivedWebhook) => JSON.parse(webhook.body) as T;
  const at = (prefix: string) => (webhook: ReceivedWebhook) => webhook.path.startsWith(prefix);

  beforeAll(async () => {
    fixture = await startAlertsFixture();
    const answer = await fixture.stack.get('/account/webhook-secret', fixture.as);
    expect(answer.status).toBe(200);
    secret = (answer.body as { secret: string }).secret;
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('answers a stable per-account secret in the Standard Webhooks format', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(((await fixture.stack.get('/account/webhook-secret', fixture.as)).body as { secret: string }).secret).toBe(secret);
    const other = ((await fixture.stack.get('/account/webhook-secret')).body as { secret: string }).secret;
    expect(other).not.toBe(secret);
  });

  describe('a search for flats for sale in Lyon', () => {
    let search: SearchRecord;
    const flat = aSnapshot({ price: 300_000 });
    let match: MatchPayload;

    beforeAll(async () => {
      search = await createSearch(fixture, {
        title: 'Flats in Lyon',
        includedCities: ['/cities/69123'],
        notificationEnabled: true,
        endpointRecipient: url('/lyon/matches'),
        eventEndpoint: url('/lyon/events'),
        subscribedEvents: ['ad.update.price', 'property.ad.create'],
        hidePropertyContact: true,
      });
      await ingest(fixture, flat);
      match = bodyOf<MatchPayload>(await fixture.receiver.waitFor(at('/lyon/matches'), WAIT_MS));
    }, 60_000);

    it('sends the new match to endpointRecipient, signed so that standardwebhooks verifies it', async () => {
      const webhook = await fixture.receiver.waitFor(at('/lyon/matches'), WAIT_MS);
      expect(verify(secret, webhook)).toMatchObject({ '@type': 'Match' });
      expect(webhook.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(match).toMatchObject({
        '@context': '/contexts/Match',
        '@id': expect.stringMatching(/^\/matches\/[0-9a-f-]{36}$/),
        '@type': 'Match',
        search: `/searches/${search.id}`,
        property: `/documents/properties/${match.propertyDocument.uuid}`,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(match.propertyDocument.adverts.map((advert) => advert.url)).toContain(flat['url']);
    });

    it('strips contact data from every payload when the search hides it', () => {
      expect(match.propertyDocument.adverts.every((advert) => advert.contact === null)).toBe(true);
    });

    it('sends the advert creation to eventEndpoint, with its match', async () => {
      const webhook = await fixture.receiver.waitFor((w) => w.path.startsWith('/lyon/events') && bodyOf<EventPayload>(w).event === 'property.ad.create', WAIT_MS);
      const payload = verify(secret, webhook) as EventPayload;
      expect(payload.match['@id']).toBe(match['@id']);
      expect(Object.values(payload.adEvent).every((value) => typeof value === 'string')).toBe(true);
    });

    it('sends a price drop as ad.update.price with string fields and the same match', async () => {
      await ingest(fixture, recrawl(flat, { price: 270_000 }));
      const webhook = await fixture.receiver.waitFor((w) => w.path.startsWith('/lyon/events') && bodyOf<EventPayload>(w).event === 'ad.update.price', WAIT_MS);
      const payload = verify(secret, webhook) as EventPayload;
      expect(payload.adEvent).toEqual({ fieldName: 'price', fieldOldValue: '300000', fieldNewValue: '270000', percentVariation: '-10', createdAt: expect.any(String) });
      expect(payload.match).toMatchObject({ '@id': match['@id'], search: `/searches/${search.id}` });
      expect(payload.match.propertyDocument.price).toBe(270_000);
    });

    it('gives one match per property, however often it changes, listed with its document', async () => {
      const listed = (await fixture.stack.get(`/searches/${search.id}/matches`, fixture.as)).body as Collection<MatchPayload>;
      expect(listed['hydra:totalItems']).toBe(1);
      expect(listed['hydra:member'][0]).toMatchObject({ '@id': match['@id'], propertyDocument: { uuid: match.propertyDocument.uuid } });
      expect(fixture.receiver.received.filter(at('/lyon/matches'))).toHaveLength(1);
      const record = (await fixture.stack.get(`/searches/${search.id}`, fixture.as)).body as SearchRecord;
      expect(record.lastAlertAt).toEqual(expect.any(String));
    });

    it('sends nothing for a house, a flat elsewhere, or a rental', async () => {
      await ingest(fixture, aSnapshot({ propertyType: 1 }), aSnapshot({}, 'bordeaux'), aSnapshot({ transactionType: 1, price: 900 }));
      // A later matching flat is the barrier: the three came before it.
      const barrier = aSnapshot();
      await ingest(fixture, barrier);
      await fixture.receiver.waitFor((w) => w.path.startsWith('/lyon/matches') && w.body.includes(String(barrier['url'])), WAIT_MS);
      expect(fixture.receiver.received.filter(at('/lyon/matches'))).toHaveLength(2);
    });

    it('lists its deliveries with their attempts', async () => {
      const listed = await eventually(
        async () => (await fixture.stack.get(`/searches/${search.id}/deliveries`, fixture.as)).body as Collection<DeliveryView>,
        (page) => page['hydra:member'].every((delivery) => delivery.status === 'delivered'),
        WAIT_MS,
      );
      expect(listed['hydra:totalItems']).toBe(fixture.receiver.received.filter(at('/lyon/')).length);
      for (const delivery of listed['hydra:member']) {
        expect(delivery).toMatchObject({ '@type': 'Delivery', status: 'delivered', attempts: [{ statusCode: 200, error: null, durationMs: expect.any(Number) }] });
      }
      const one = listed['hydra:member'][0] as DeliveryView;
      expect((await fixture.stack.get(`/searches/${search.id}/deliveries/${one.id}`, fixture.as)).body).toMatchObject({ id: one.id, kind: one.kind });
      expect((await fixture.stack.get(`/searches/${search.id}/deliveries/00000000-0000-4000-8000-000000000000`, fixture.as)).status).toBe(404);
      expect((await fixture.stack.get(`/searches/${search.id}/deliveries/nope`, fixture.as)).status).toBe(400);
      expect((await fixture.stack.get(`/searches/${search.id}/deliveries?page=0`, fixture.as)).status).toBe(400);
      // Another account's search is not found.
      expect((await fixture.stack.get(`/searches/${search.id}/deliveries`)).status).toBe(404);
      expect((await fixture.stack.get(`/searches/${search.id}/matches`)).status).toBe(404);
    });

    it('streams notifications as Server-Sent Events and resumes after Last-Event-ID', async () => {
      const streamUrl = `${fixture.stack.stack.baseUrl}/searches/${search.id}/stream`;
      const first = await openSse(streamUrl, fixture.as);
      expect(first.status).toBe(200);
      const one = aSnapshot();
      await ingest(fixture, one);
      const event = await first.next(WAIT_MS);
      expect(event.event).toBe('match');
      const streamed = JSON.parse(event.data) as MatchPayload;
      expect(streamed).toMatchObject({ '@type': 'Match', search: `/searches/${search.id}` });
      // The webhook body as it is: its times in Paris time.
      for (const time of [streamed.createdAt, streamed.propertyDocument.createdAt]) expect(time).toBe(asParisTime(time));
      first.close();

      const missed = aSnapshot();
      await ingest(fixture, missed);
      await fixture.receiver.waitFor((w) => w.path.startsWith('/lyon/matches') && w.body.includes(String(missed['url'])), WAIT_MS);
      const resumed = await openSse(streamUrl, { ...fixture.as, 'Last-Event-ID': event.id });
      // What came after the first event: its advert's creation (an Event), then the missed match.
      const replayed = [await resumed.next(WAIT_MS), await resumed.next(WAIT_MS)];
      resumed.close();
      expect(replayed.map((message) => message.event)).toEqual(['property.ad.create', 'match']);
      expect(replayed.map((message) => message.id)).not.toContain(event.id);
      expect(replayed[1]?.data).toContain(String(missed['url']));
      expect((await openSse(streamUrl, {})).status).toBe(401);
    });
  });

  it('streams the alerts of a search with notifications on but no endpoint (no HTTPS receiver needed), and logs no delivery', async () => {
    const search = await createSearch(fixture, { title: 'No endpoint', includedCities: ['/cities/69123'], notificationEnabled: true, subscribedEvents: ['ad.update.price'] });
    const stream = await openSse(`${fixture.stack.stack.baseUrl}/searches/${search.id}/stream`, fixture.as);
    const flat = aSnapshot({ price: 250_000 });
    await ingest(fixture, flat);
    const match = await stream.next(WAIT_MS);
    expect(match.event).toBe('match');
    expect(match.data).toContain(String(flat['url']));
    await ingest(fixture, recrawl(flat, { price: 240_000 }));
    const drop = await stream.next(WAIT_MS);
    stream.close();
    expect(drop.event).toBe('ad.update.price');
    expect(JSON.parse(drop.data)).toMatchObject({ event: 'ad.update.price', adEvent: { fieldOldValue: '250000', fieldNewValue: '240000' } });
    expect(((await fixture.stack.get(`/searches/${search.id}/deliveries`, fixture.as)).body as Collection<DeliveryView>)['hydra:totalItems']).toBe(0);
  });

  it("alerts for a property with a live advert priced within the search's advertPriceMax, and not for a dearer one", async () => {
    const search = await createSearch(fixture, { title: 'Cheap adverts', includedCities: ['/cities/69123'], advertPriceMax: 260_000, notificationEnabled: true });
    expect(search).toMatchObject({ advertPriceMax: 260_000 });
    const stream = await openSse(`${fixture.stack.stack.baseUrl}/searches/${search.id}/stream`, fixture.as);
    const dear = aSnapshot({ price: 300_000 });
    const cheap = aSnapshot({ price: 255_000 });
    // The dearer flat is decided first: were the bound not applied, it would be the first alert.
    await ingest(fixture, dear);
    await ingest(fixture, cheap);
    const alert = await stream.next(WAIT_MS);
    stream.close();
    expect(alert.event).toBe('match');
    expect(alert.data).toContain(String(cheap['url']));
    const listed = (await fixture.stack.get(`/searches/${search.id}/matches`, fixture.as)).body as Collection<MatchPayload>;
    expect(listed['hydra:member'].map((match) => match.propertyDocument.adverts[0]?.url)).toEqual([cheap['url']]);
  });

  it('writes every time of a webhook in Paris time, with the offset of its date, as signed', async () => {
    const search = await createSearch(fixture, {
      title: 'Paris time',
      includedCities: ['/cities/31555'],
      notificationEnabled: true,
      endpointRecipient: url('/paris-time/matches'),
      eventEndpoint: url('/paris-time/events'),
      subscribedEvents: ['property.ad.create'],
    });
    // Seen by the crawler in summer (given in UTC) and in winter (given at +05:00).
    const summer = aSnapshot({ seenAt: '2025-07-01T12:03:00Z' }, 'toulouse');
    const winter = aSnapshot({ seenAt: '2025-01-15T13:00:00+05:00' }, 'toulouse');
    await ingest(fixture, summer, winter);
    const matchOf = async (flat: Record<string, unknown>) => {
      const webhook = await fixture.receiver.waitFor((w) => w.path.startsWith('/paris-time/matches') && w.body.includes(String(flat['url'])), WAIT_MS);
      return verify(secret, webhook) as MatchPayload;
    };
    const [inSummer, inWinter] = [await matchOf(summer), await matchOf(winter)];

    const documentTimes = (payload: MatchPayload) => {
      const [advert] = payload.propertyDocument.adverts;
      return [payload.propertyDocument.createdAt, payload.propertyDocument.updatedAt, payload.propertyDocument.lastCrawledAt, advert?.createdAt, advert?.lastCrawledAt];
    };
    expect(documentTimes(inSummer)).toEqual(Array(5).fill('2025-07-01T14:03:00+02:00'));
    expect(documentTimes(inWinter)).toEqual(Array(5).fill('2025-01-15T09:00:00+01:00'));
    // The match itself was made now: its time is today's Paris time.
    for (const time of [inSummer.createdAt, inSummer.updatedAt]) {
      expect(time).toBe(asParisTime(time));
      expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(60_000);
    }

    const creation = await fixture.receiver.waitFor(
      (w) => w.path.startsWith('/paris-time/events') && bodyOf<EventPayload>(w).match.propertyDocument.uuid === inSummer.propertyDocument.uuid,
      WAIT_MS,
    );
    const { adEvent } = verify(secret, creation) as EventPayload;
    expect(adEvent).toMatchObject({ fieldName: 'createdAt', fieldNewValue: '2025-07-01T14:03:00+02:00', createdAt: '2025-07-01T14:03:00+02:00' });

    const deliveries = await eventually(
      async () => (await fixture.stack.get(`/searches/${search.id}/deliveries`, fixture.as)).body as Collection<DeliveryView>,
      (page) => page['hydra:member'].length >= 3 && page['hydra:member'].every((delivery) => delivery.status === 'delivered'),
      WAIT_MS,
    );
    for (const delivery of deliveries['hydra:member']) {
      for (const time of [delivery.createdAt, ...delivery.attempts.map((attempt) => attempt.at)]) expect(time).toBe(asParisTime(time));
    }
    const record = (await fixture.stack.get(`/searches/${search.id}`, fixture.as)).body as SearchRecord;
    expect(record.lastAlertAt).toBe(asParisTime(String(record.lastAlertAt)));
  });

  it('retries a failed delivery with the same webhook-id, and again by hand', async () => {
    let calls = 0;
    fixture.receiver.answer('/flaky/', () => (++calls === 1 ? 500 : 200));
    const search = await createSearch(fixture, { title: 'Flaky receiver', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/flaky/matches') });
    await ingest(fixture, aSnapshot());
    const firstTry = await fixture.receiver.waitFor(at('/flaky/'), WAIT_MS);
    const secondTry = await fixture.receiver.waitFor((w) => w.path.startsWith('/flaky/') && w !== firstTry, WAIT_MS);
    expect(secondTry.headers['webhook-id']).toBe(firstTry.headers['webhook-id']);
    expect(secondTry.atMs - firstTry.atMs).toBeGreaterThanOrEqual(RETRY_INTERVAL_MS - 50);
    verify(secret, secondTry);

    const deliveryId = String(firstTry.headers['webhook-id']);
    const delivery = await eventually(
      async () => (await fixture.stack.get(`/searches/${search.id}/deliveries/${deliveryId}`, fixture.as)).body as DeliveryView,
      (view) => view.status === 'delivered',
      WAIT_MS,
    );
    expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);

    const retried = await fixture.stack.send('POST', `/searches/${search.id}/deliveries/${deliveryId}/retry`, {}, fixture.as);
    expect(retried.status).toBe(202);
    const byHand = await fixture.receiver.waitFor((w) => w.path.startsWith('/flaky/') && w !== firstTry && w !== secondTry, WAIT_MS);
    expect(byHand.headers['webhook-id']).toBe(deliveryId);
  });

  it('turns a search\'s notifications off when its receiver answers 410 Gone', async () => {
    fixture.receiver.answer('/gone/', 410);
    const search = await createSearch(fixture, { title: 'Gone receiver', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/gone/matches') });
    await ingest(fixture, aSnapshot());
    await fixture.receiver.waitFor(at('/gone/'), WAIT_MS);
    const record = await eventually(
      async () => (await fixture.stack.get(`/searches/${search.id}`, fixture.as)).body as SearchRecord,
      (value) => value.notificationEnabled === false,
      WAIT_MS,
    );
    expect(record.notificationEnabled).toBe(false);
  });

  it('signs with both secrets for a while after a rotation', async () => {
    const rotated = await fixture.stack.send('POST', '/account/webhook-secret/rotate', {}, fixture.as);
    expect(rotated.status).toBe(200);
    const next = (rotated.body as { secret: string }).secret;
    expect(next).not.toBe(secret);
    await createSearch(fixture, { title: 'After rotation', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/rotated/matches') });
    await ingest(fixture, aSnapshot());
    const webhook = await fixture.receiver.waitFor(at('/rotated/'), WAIT_MS);
    expect(String(webhook.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(next, webhook)).toBeTruthy();
    expect(verify(secret, webhook)).toBeTruthy();
    secret = next;
  });

  describe('the webhook tester', () => {
    it('sends a signed Match when no eventType is given, and says what the receiver answered', async () => {
      const answer = await fixture.stack.get(`/webhook-tester?endpoint=${encodeURIComponent(url('/tester/match'))}`, fixture.as);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, code: 200, error: null, durationMs: expect.any(Number), webhookId: expect.any(String) });
      const webhook = await fixture.receiver.waitFor(at('/tester/match'), WAIT_MS);
      expect(webhook.headers['webhook-id']).toBe((answer.body as { webhookId: string }).webhookId);
      expect(verify(secret, webhook)).toMatchObject({ '@type': 'Match', propertyDocument: { '@type': 'PropertyDocument' } });
    });

    it('sends an Event of the given kind', async () => {
      const answer = await fixture.stack.get(`/webhook-tester?endpoint=${encodeURIComponent(url('/tester/event'))}&eventType=ad.update.price`, fixture.as);
      expect(answer.body).toMatchObject({ success: true, code: 200 });
      const payload = verify(secret, await fixture.receiver.waitFor(at('/tester/event'), WAIT_MS)) as EventPayload;
      expect(payload).toMatchObject({ event: 'ad.update.price', adEvent: { fieldName: 'price' }, match: { '@type': 'Match' } });
    });

    it('reports a receiver that does not say 200', async () => {
      fixture.receiver.answer('/tester/broken', 500);
      const answer = await fixture.stack.get(`/webhook-tester?endpoint=${encodeURIComponent(url('/tester/broken'))}`, fixture.as);
      expect(answer.body).toMatchObject({ success: false, code: 500, error: expect.stringContaining('500') });
    });

    it('answers the payload and headers without sending them on dryRun', async () => {
      const before = fixture.receiver.received.length;
      const answer = await fixture.stack.get(`/webhook-tester?endpoint=${encodeURIComponent(url('/tester/dry'))}&eventType=ad.update.expired&dryRun=true`, fixture.as);
      expect(answer.body).toMatchObject({ dryRun: true, headers: { 'webhook-id': expect.any(String), 'webhook-signature': expect.stringMatching(/^v1,/) }, payload: { event: 'ad.update.expired' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fixture.receiver.received.length).toBe(before);
    });

    it('refuses an unknown eventType, a missing or non-https endpoint and unknown parameters, naming them', async () => {
      const refused = async (query: string) => (await fixture.stack.get(`/webhook-tester?${query}`, fixture.as)) as { status: number; body: Problem };
      const badKind = await refused(`endpoint=${encodeURIComponent(url('/x'))}&eventType=ad.update.colour`);
      expect(badKind.status).toBe(400);
      expect(badKind.body.violations?.map((v) => v.propertyPath)).toEqual(['eventType']);
      expect((await refused('eventType=ad.update.price')).body.violations?.map((v) => v.propertyPath)).toEqual(['endpoint']);
      expect((await refused(`endpoint=${encodeURIComponent(`http://127.0.0.1:${fixture.receiver.port}/x`)}`)).status).toBe(400);
      expect((await refused(`endpoint=${encodeURIComponent(url('/x'))}&eventTyp=ad.update.price`)).body.violations?.map((v) => v.propertyPath)).toEqual(['eventTyp']);
    });
  });

  describe('SSRF refusals (loopback addresses outside WEBHOOK_PRIVATE_TARGETS_ALLOWED)', () => {
    const elsewhere = () => `https://127.0.0.2:${fixture.receiver.port}/hook`;

    it('refuses them as search endpoints', async () => {
      const created = await fixture.stack.send('POST', '/searches', { title: 'x', transactionType: 0, propertyTypes: [0], endpointRecipient: elsewhere() }, fixture.as);
      expect(created.status).toBe(400);
      expect((created.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['endpointRecipient']);
      const named = await fixture.stack.send('POST', '/searches', { title: 'x', transactionType: 0, propertyTypes: [0], eventEndpoint: `https://localhost:${fixture.receiver.port}/hook` }, fixture.as);
      expect(named.status).toBe(400);
    });

    it('refuses them in the tester, before anything is sent', async () => {
      const before = fixture.receiver.received.length;
      const answer = await fixture.stack.get(`/webhook-tester?endpoint=${encodeURIComponent(elsewhere())}`, fixture.as);
      expect(answer.status).toBe(400);
      expect((answer.body as Problem).violations?.map((v) => v.propertyPath)).toEqual(['endpoint']);
      expect(fixture.receiver.received.length).toBe(before);
    });
  });
});
