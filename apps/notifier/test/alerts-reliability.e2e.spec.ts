import { connect, type NatsConnection } from 'nats';
import {
  ALERT_NOTIFICATIONS_STREAM,
  LISTINGS_INTEGRATION_STREAM,
  LISTINGS_INTEGRATION_SUBJECTS,
  type DeliveryView,
  type PropertyDocument,
  type SearchRecord,
} from '@immo/contracts';
import type { ReceivedWebhook } from '@immo/testing';
import { aSnapshot, createSearch, eventually, ingest, startAlertsFixture, RETRY_INTERVAL_MS, type AlertsFixture } from './alerts-fixture';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number };
/** A match as `GET /searches/{id}/matches` lists it: with the property's document as listings holds it. */
type ListedMatch = { property: string; propertyDocument: PropertyDocument };

const WAIT_MS = 20_000;

describe('alerts under crashes, restarts, duplicates and deletions', () => {
  let fixture: AlertsFixture;
  // The publishers of each stream, as replays by them would come.
  let nats: NatsConnection;
  let searchesNats: NatsConnection;
  const url = (path: string) => fixture.receiver.url(path);
  const at = (prefix: string) => (webhook: ReceivedWebhook) => webhook.path.startsWith(prefix);
  const carrying = (prefix: string, snapshot: Record<string, unknown>) => (webhook: ReceivedWebhook) =>
    webhook.path.startsWith(prefix) && webhook.body.includes(String(snapshot['url']));
  /** The search's deliveries; none while the notifier is not answering yet (503 right after a restart). */
  const deliveriesOf = async (search: SearchRecord): Promise<DeliveryView[]> => {
    const answer = await fixture.stack.get(`/searches/${search.id}/deliveries?itemsPerPage=100`, fixture.as);
    return answer.status === 200 ? (answer.body as Collection<DeliveryView>)['hydra:member'] : [];
  };

  beforeAll(async () => {
    fixture = await startAlertsFixture();
    nats = await connect(fixture.stack.stack.natsConnectOptions('listings'));
    searchesNats = await connect(fixture.stack.stack.natsConnectOptions('searches'));
  }, 120_000);

  afterAll(async () => {
    await nats?.close();
    await searchesNats?.close();
    await fixture?.teardown();
  });

  it('attempts again, with the same webhook-id, a delivery the notifier was killed during (kill -9 between sending and recording)', async () => {
    let calls = 0;
    fixture.receiver.answer('/crash/', () => (++calls === 1 ? 'hang' : 200));
    const search = await createSearch(fixture, { title: 'Crash', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/crash/matches') });
    await ingest(fixture, aSnapshot());
    const sent = await fixture.receiver.waitFor(at('/crash/'), WAIT_MS);
    // The receiver holds the request: the notifier dies before it can record any outcome.
    await fixture.stack.stack.killApp('notifier');
    await fixture.stack.stack.restartApp('notifier');
    const again = await fixture.receiver.waitFor((w) => w.path.startsWith('/crash/') && w !== sent, WAIT_MS);
    expect(again.headers['webhook-id']).toBe(sent.headers['webhook-id']);
    const [delivery] = await eventually(() => deliveriesOf(search), (list) => list[0]?.status === 'delivered', WAIT_MS);
    expect(delivery).toMatchObject({ id: sent.headers['webhook-id'], status: 'delivered' });
    // Ledger: every delivery is delivered, failed or pending; none lost.
    expect(await deliveriesOf(search)).toHaveLength(1);
  }, 60_000);

  it('finishes and records a delivery under way when the notifier is stopped with SIGTERM (not sent twice after the restart)', async () => {
    // Slow, but within the notifier's timeout (1.5 s in these tests).
    fixture.receiver.answer('/sigterm/', { status: 200, delayMs: 800 });
    const search = await createSearch(fixture, { title: 'SIGTERM', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/sigterm/matches') });
    await ingest(fixture, aSnapshot());
    const sent = await fixture.receiver.waitFor(at('/sigterm/'), WAIT_MS);
    await fixture.stack.stack.stopApp('notifier');
    await fixture.stack.stack.restartApp('notifier');
    const [delivery] = await eventually(() => deliveriesOf(search), (list) => list[0]?.status === 'delivered', WAIT_MS);
    expect(delivery).toMatchObject({ id: sent.headers['webhook-id'], status: 'delivered', attempts: [{ statusCode: 200 }] });
    // Past a scan of the restarted notifier: nothing was sent again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fixture.receiver.received.filter(at('/sigterm/'))).toHaveLength(1);
  }, 60_000);

  it('gives one delivery for a duplicated integration event and for a duplicated notification, beyond the broker\'s duplicate window', async () => {
    await createSearch(fixture, { title: 'Duplicates', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/dup/matches') });
    const flat = aSnapshot();
    await ingest(fixture, flat);
    const first = await fixture.receiver.waitFor(carrying('/dup/', flat), WAIT_MS);
    const jsm = await nats.jetstreamManager();
    const js = nats.jetstream();
    // Published again under other message ids: JetStream's duplicate window cannot drop them.
    const created = await jsm.streams.getMessage(LISTINGS_INTEGRATION_STREAM, { last_by_subj: LISTINGS_INTEGRATION_SUBJECTS.advertEvent('property.ad.create') });
    expect(created.json<{ document: PropertyDocument }>().document.adverts[0]?.url).toBe(flat['url']);
    await js.publish(created.subject, created.data, { msgID: `replayed-${Date.now()}` });
    const notification = await (await searchesNats.jetstreamManager()).streams.getMessage(ALERT_NOTIFICATIONS_STREAM, { last_by_subj: 'alerts.notifications.v1' });
    await searchesNats.jetstream().publish(notification.subject, notification.data, { msgID: `replayed-notification-${Date.now()}` });
    // A later flat is the barrier: both duplicates were handled before it.
    const barrier = aSnapshot();
    await ingest(fixture, barrier);
    await fixture.receiver.waitFor(carrying('/dup/', barrier), WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const forFlat = fixture.receiver.received.filter(carrying('/dup/', flat));
    expect(forFlat).toHaveLength(1);
    expect(forFlat[0]).toBe(first);
  }, 60_000);

  it('loses nothing when nats-server is killed and restarted mid-run', async () => {
    await createSearch(fixture, { title: 'NATS restart', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/nats/matches') });
    const flats = Array.from({ length: 12 }, () => aSnapshot());
    await ingest(fixture, ...flats);
    await fixture.stack.stack.killApp('nats-server');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await fixture.stack.stack.restartApp('nats-server');
    const later = Array.from({ length: 4 }, () => aSnapshot());
    // Ingestion answers 503 until the services have reconnected; a client retries.
    await eventually(
      async () => (await fixture.stack.send('POST', '/admin/adverts', later, fixture.admin)).status,
      (status) => status === 200,
      WAIT_MS,
    );
    for (const flat of [...flats, ...later]) await fixture.receiver.waitFor(carrying('/nats/', flat), 40_000);
    for (const flat of [...flats, ...later]) expect(fixture.receiver.received.filter(carrying('/nats/', flat))).toHaveLength(1);
  }, 120_000);

  it('loses no match and sends none twice when the searches service (the matcher) is killed mid-run', async () => {
    await createSearch(fixture, { title: 'Matcher crash', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/matcher/matches') });
    const flats = Array.from({ length: 30 }, () => aSnapshot());
    await ingest(fixture, ...flats.slice(0, 15));
    await fixture.receiver.waitFor(at('/matcher/'), WAIT_MS);
    await fixture.stack.stack.killApp('searches');
    // Listings goes on publishing while the matcher is down: the durable consumer keeps them.
    await ingest(fixture, ...flats.slice(15));
    await fixture.stack.stack.restartApp('searches');
    for (const flat of flats) await fixture.receiver.waitFor(carrying('/matcher/', flat), 40_000);
    for (const flat of flats) expect(fixture.receiver.received.filter(carrying('/matcher/', flat))).toHaveLength(1);
  }, 120_000);

  it('sends nothing more for a search deleted while its deliveries are pending', async () => {
    fixture.receiver.answer('/deleted/', 500);
    const search = await createSearch(fixture, { title: 'Deleted', includedCities: ['/cities/69123'], notificationEnabled: true, endpointRecipient: url('/deleted/matches') });
    await ingest(fixture, aSnapshot());
    await fixture.receiver.waitFor(at('/deleted/'), WAIT_MS);
    const deleted = await fetch(`${fixture.stack.stack.baseUrl}/searches/${search.id}`, { method: 'DELETE', headers: fixture.as });
    expect(deleted.status).toBe(204);
    const before = fixture.receiver.received.filter(at('/deleted/')).length;
    await new Promise((resolve) => setTimeout(resolve, RETRY_INTERVAL_MS * 4));
    expect(fixture.receiver.received.filter(at('/deleted/')).length).toBe(before);
  }, 60_000);

  it('gives each search, for new properties, exactly the matches GET /documents/properties finds for its criteria', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const criteriaList = Array.from({ length: 10 }, () => {
      const criteria: Record<string, unknown> = { transactionType: 0, propertyTypes: random() < 0.3 ? [0, 1] : [pick([0, 1])] };
      if (random() < 0.5) criteria['budgetMax'] = pick([200_000, 300_000, 450_000]);
      if (random() < 0.4) criteria['surfaceMin'] = pick([30, 60, 90]);
      if (random() < 0.4) criteria['roomMin'] = pick([2, 3, 4]);
      if (random() < 0.5) criteria['includedCities'] = [pick(['/cities/69123', '/cities/33063', '/cities/31555'])];
      if (random() < 0.3) criteria['expressions'] = [[{ word: pick(['jardin', 'terrasse', 'piscine']) }]];
      return criteria;
    });
    const searches: SearchRecord[] = [];
    for (const [i, criteria] of criteriaList.entries()) searches.push(await createSearch(fixture, { title: `Random ${i}`, ...criteria }));
    // Matches every new property: once it has all of them, listings and the matcher are through.
    const everything = await createSearch(fixture, { title: 'Everything', propertyTypes: [0, 1] });
    const flats = Array.from({ length: 40 }, (_, i) => {
      const surface = 25 + ((i * 37) % 120);
      return aSnapshot(
        {
          propertyType: i % 2,
          price: Math.round(surface * (2500 + ((i * 131) % 3000))),
          priceExcludingFees: Math.round(surface * (2400 + ((i * 131) % 3000))),
          surface,
          room: 1 + (i % 5),
          bedroom: i % 5,
          description: `Annonce synthétique avec ${pick(['jardin', 'terrasse', 'piscine', 'cave'])}.`,
        },
        pick(['lyon', 'bordeaux', 'toulouse'] as const),
      );
    });
    await ingest(fixture, ...flats);
    // Properties of the other tests may meet these criteria too; only the new ones can be matches.
    const urls = new Set(flats.map((flat) => String(flat['url'])));
    const isNew = (doc: PropertyDocument | null) => doc !== null && doc.adverts.some((advert) => advert.url !== null && urls.has(advert.url));
    const allMatches = async (search: SearchRecord) => {
      const all: ListedMatch[] = [];
      for (let page = 1; ; page++) {
        const members = ((await fixture.stack.get(`/searches/${search.id}/matches?page=${page}`, fixture.as)).body as Collection<ListedMatch>)['hydra:member'];
        all.push(...members);
        if (members.length < 30) return all;
      }
    };
    expect(await eventually(() => allMatches(everything), (list) => list.length === flats.length, WAIT_MS)).toHaveLength(flats.length);
    const expected = new Map<string, string[]>();
    for (const search of searches) {
      const found: PropertyDocument[] = [];
      for (let page = 1; ; page++) {
        const members = ((await fixture.stack.get(`/searches/${search.id}/properties?itemsPerPage=30&page=${page}`, fixture.as)).body as Collection<PropertyDocument>)['hydra:member'];
        found.push(...members);
        if (members.length < 30) break;
      }
      expected.set(search.id, found.filter(isNew).map((doc) => doc.uuid).sort());
    }
    expect([...expected.values()].filter((ids) => ids.length > 0).length).toBeGreaterThan(3);
    for (const search of searches) {
      const want = expected.get(search.id) as string[];
      const matches = await allMatches(search);
      expect(matches.filter((match) => isNew(match.propertyDocument)).map((match) => match.propertyDocument.uuid).sort()).toEqual(want);
      // Nothing older than the search was sent to it.
      expect(matches.every((match) => isNew(match.propertyDocument))).toBe(true);
    }
  }, 120_000);
});
