import { connect, type NatsConnection } from 'nats';
import { JetStreamEventStore } from '@immo/event-store';
import type { AdvertSnapshot, City } from '@immo/contracts';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { ADVERT_EVENT_TYPES, PropertyMatcher, advertStreamName, replay, fromRecordedEvent } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import type { GeoLookup } from '../geo/geo-directory.client';
import { IngestionService } from './ingestion.service';

const LYON: Pick<City, 'insee'> = { insee: '69123' };

/** Geo stand-in: Lyon exists, `69003 Lyon` resolves to it, nothing else does. */
const geo: GeoLookup = {
  async cityByInsee(insee) {
    return insee === LYON.insee ? ({ insee } as City) : null;
  },
  async inseeOf(zipcode, name) {
    return zipcode === '69003' && name.toLowerCase() === 'lyon' ? LYON.insee : null;
  },
  async stationsNear() {
    return [];
  },
};

describe('IngestionService (real JetStream event store)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  let counter = 0;
  const now = () => new Date('2026-06-01T00:00:00Z');
  /** A snapshot of a flat nobody else uses in this file. */
  const fresh = (overrides: Partial<AdvertSnapshot> = {}) => {
    counter++;
    return aSnapshot({
      reference: `REF-${counter}`,
      url: `https://synthetic-portal-a.example/annonces/REF-${counter}`,
      surface: 40 + counter * 7,
      ...overrides,
    });
  };

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'INGESTION_TEST', subjectPrefix: 'es.ingestion' });
  });

  afterAll(async () => {
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
  });

  it('groups two listings of one good sent in the same batch into one property', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const agency = fresh();
    const owner = { ...agency, site: 'synthetic-portal-b', reference: 'B-1', url: 'https://synthetic-portal-b.example/1', publisher: { name: 'Particulier', category: 'owner', type: 0 as const } };
    const reply = await ingestion.ingest([agency, owner]);
    expect(reply.accepted).toBe(2);
    const [first, second] = reply.results;
    expect(first?.status === 'accepted' && second?.status === 'accepted' && first.propertyId === second.propertyId).toBe(true);
  });

  it('appends nothing once it cannot be sure it still leads ingestion (a leader stalled past its lease): what is left of the batch is "retry later"', async () => {
    let leading = true;
    let appends = 0;
    const append = eventStore.append.bind(eventStore);
    const spy = jest.spyOn(eventStore, 'append').mockImplementation(async (...args) => {
      appends++;
      // The lease is lost after the first append, as if the process had stalled past it there.
      leading = false;
      return append(...args);
    });
    try {
      const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now, leading: () => leading });
      const reply = await ingestion.ingest([fresh(), fresh(), fresh()]);
      expect([reply.accepted, reply.rejected, appends]).toEqual([1, 2, 1]);
      const refused = reply.results.filter((result) => result.status === 'rejected');
      for (const result of refused) expect(result.status === 'rejected' && result.violations[0]?.message).toMatch(/retry later: this instance no longer surely leads ingestion/);
    } finally {
      spy.mockRestore();
    }
  });

  it('resolves a commune given by postal code and name, and warns about one it cannot resolve', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const reply = await ingestion.ingest([
      fresh({ commune: { zipcode: '69003', name: 'LYON' } }),
      fresh({ commune: { zipcode: '99999', name: 'Nulle-Part' } }),
    ]);
    const [resolved, unknown] = reply.results;
    expect(resolved).toMatchObject({ status: 'accepted', warnings: [] });
    expect(unknown).toMatchObject({ status: 'accepted', warnings: [expect.stringMatching(/Nulle-Part.*99999/)] });
    const events = await eventStore.readStream(advertStreamName(resolved?.advertId ?? ''));
    expect(replay(events.map(fromRecordedEvent))?.commune.insee).toBe('69123');
  });

  it('loses no update when two instances write the same advert (expected revision)', async () => {
    const a = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const b = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const original = fresh({ seenAt: '2026-05-01T00:00:00Z' });
    await a.ingest([original]);
    // b writes a recrawl: a's cached revision is now stale.
    await b.ingest([{ ...original, seenAt: '2026-05-02T00:00:00Z' }]);
    // a's append at its stale revision fails, a re-reads and re-decides: the price change lands.
    const fromA = await a.ingest([{ ...original, price: 280_000, seenAt: '2026-05-03T00:00:00Z' }]);
    expect(fromA.results[0]).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.priceChanged] });
    // Now b is stale; its decision (price and surface) is retaken on the fresh state: only the surface is new.
    const reply = await b.ingest([{ ...original, price: 280_000, surface: (original.surface ?? 0) + 1, seenAt: '2026-05-04T00:00:00Z' }]);
    expect(reply.results[0]).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.surfaceChanged] });
    const advertId = reply.results[0]?.advertId ?? '';
    const types = (await eventStore.readStream(advertStreamName(advertId))).map((event) => event.type);
    expect(types).toEqual([
      ADVERT_EVENT_TYPES.published,
      ADVERT_EVENT_TYPES.assignedToProperty,
      ADVERT_EVENT_TYPES.recrawled,
      ADVERT_EVENT_TYPES.priceChanged,
      ADVERT_EVENT_TYPES.surfaceChanged,
    ]);
  });

  it('decides on the projected state when it is current, and on the stream when the projection lags', async () => {
    const writer = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const original = fresh({ seenAt: '2026-05-01T00:00:00Z' });
    const first = await writer.ingest([original]);
    const advertId = first.results[0]?.advertId ?? '';
    const stateAt = async () => {
      const events = await eventStore.readStream(advertStreamName(advertId));
      return { state: replay(events.map(fromRecordedEvent)), revision: events.length - 1 };
    };
    const projectedThen = await stateAt();
    await writer.ingest([{ ...original, price: 250_000, seenAt: '2026-05-02T00:00:00Z' }]);

    // The projection has not seen the advert at all: "new" is guessed, the append is refused, the stream decides.
    const unprojected = new IngestionService(eventStore, geo, new PropertyMatcher(), { now, projected: async () => null });
    const recrawl = await unprojected.ingest([{ ...original, price: 250_000, seenAt: '2026-05-03T00:00:00Z' }]);
    expect(recrawl.results[0]).toMatchObject({ status: 'accepted', advertId, events: [ADVERT_EVENT_TYPES.recrawled] });

    // The projection lags by two commits: its state is refused the same way.
    const lagging = new IngestionService(eventStore, geo, new PropertyMatcher(), { now, projected: async () => projectedThen });
    const drop = await lagging.ingest([{ ...original, price: 240_000, seenAt: '2026-05-04T00:00:00Z' }]);
    expect(drop.results[0]).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.priceChanged] });

    // A current projection is taken as is.
    const current = await stateAt();
    let asked = 0;
    const upToDate = new IngestionService(eventStore, geo, new PropertyMatcher(), { now, projected: async () => (asked++, current) });
    const again = await upToDate.ingest([{ ...original, price: 230_000, seenAt: '2026-05-05T00:00:00Z' }]);
    expect(again.results[0]).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.priceChanged] });
    expect(asked).toBe(1);

    const types = (await eventStore.readStream(advertStreamName(advertId))).map((event) => event.type);
    expect(types).toEqual([
      ADVERT_EVENT_TYPES.published,
      ADVERT_EVENT_TYPES.assignedToProperty,
      ADVERT_EVENT_TYPES.priceChanged,
      ADVERT_EVENT_TYPES.recrawled,
      ADVERT_EVENT_TYPES.priceChanged,
      ADVERT_EVENT_TYPES.priceChanged,
    ]);
  });

  it("appends a known advert's next events at the position its projected state was taken from, with no look-up of the stream's head", async () => {
    const original = fresh({ seenAt: '2026-05-01T00:00:00Z' });
    const first = await new IngestionService(eventStore, geo, new PropertyMatcher(), { now }).ingest([original]);
    const advertId = first.results[0]?.advertId ?? '';
    /** The advert as a projection holds it: its state, and the revision and position of its last event. */
    const projectedState = async (withPosition: boolean) => {
      const recorded = await eventStore.readStream(advertStreamName(advertId));
      const last = recorded.at(-1);
      return { state: replay(recorded.map(fromRecordedEvent)), revision: last?.revision ?? -1, position: withPosition ? last?.position : undefined };
    };
    let lookUps = 0;
    /**
     * A repricing ingested by a restarted process, on the advert's projected state: its event store
     * knows no stream head, and a look-up of one asks for a turn (counted).
     */
    const repriceAfterRestart = async (withPosition: boolean, price: number, seenAt: string) => {
      const restartedStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'INGESTION_TEST', subjectPrefix: 'es.ingestion', yieldToEventLoop: () => void lookUps++ });
      const projected = await projectedState(withPosition);
      const ingestion = new IngestionService(restartedStore, geo, new PropertyMatcher(), { now, projected: async () => projected });
      const reply = await ingestion.ingest([{ ...original, price, seenAt }]);
      await restartedStore.close();
      return reply.results[0];
    };

    expect(await repriceAfterRestart(true, 250_000, '2026-05-02T00:00:00Z')).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.priceChanged] });
    expect(lookUps).toBe(0);
    // A state without its position (stored before positions were kept): the head is looked up first.
    expect(await repriceAfterRestart(false, 240_000, '2026-05-03T00:00:00Z')).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.priceChanged] });
    expect(lookUps).toBe(1);
    expect((await eventStore.readStream(advertStreamName(advertId))).map((event) => event.revision)).toEqual([0, 1, 2, 3]);
  });

  it('reads the batch’s adverts ahead, before deciding on any, except those it just wrote', async () => {
    const log: string[] = [];
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), {
      now,
      readAhead: async (ids) => void log.push(`ahead ${[...ids].sort().join(' ')}`),
      projected: async (id) => (log.push(`read ${id}`), null),
    });
    const [a, b] = [fresh(), fresh()];
    const first = await ingestion.ingest([a, b, { ...a }, { bad: true }]);
    const [idA, idB] = first.results.map((r) => r.advertId);
    expect(log[0]).toBe(`ahead ${[idA, idB].sort().join(' ')}`);
    expect(log.slice(1).every((line) => line.startsWith('read '))).toBe(true);
    log.length = 0;
    const c = fresh();
    const second = await ingestion.ingest([{ ...a, price: 1_000 }, c]);
    // `a` was written by this instance: its state is known, nothing to read for it.
    expect(log).toEqual([`ahead ${second.results[1]?.advertId}`, `read ${second.results[1]?.advertId}`]);
  });

  it('ingests as usual when reading ahead fails', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now, readAhead: () => Promise.reject(new Error('store closing')) });
    const reply = await ingestion.ingest([fresh()]);
    expect(reply).toMatchObject({ accepted: 1, rejected: 0 });
  });

  it('expires adverts whose announced expiry passed without a new crawl, once', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const due = fresh({ seenAt: '2026-05-01T00:00:00Z', expiredAt: '2026-05-15T00:00:00Z' });
    const later = fresh({ seenAt: '2026-05-01T00:00:00Z', expiredAt: '2026-07-15T00:00:00Z' });
    const reply = await ingestion.ingest([due, later]);
    const states = await Promise.all(
      reply.results.map(async (result) => replay((await eventStore.readStream(advertStreamName(result.advertId ?? ''))).map(fromRecordedEvent))),
    );
    expect(await ingestion.expireDue(states.filter((s) => s !== null))).toBe(1);
    const expired = replay((await eventStore.readStream(advertStreamName(reply.results[0]?.advertId ?? ''))).map(fromRecordedEvent));
    expect(expired?.expired).toBe(true);
    // The sweep sees fresh states next time; an expired advert yields nothing.
    expect(await ingestion.expireDue([expired!])).toBe(0);
  });

  it('keeps going when geo is down: an INSEE code is taken as given, a postal code + name is refused for now', async () => {
    const down: GeoLookup = {
      cityByInsee: () => Promise.reject(new Error('No service answers geo.query.city-by-insee.v1')),
      inseeOf: () => Promise.reject(new Error('No service answers geo.query.city-by-zipcode-and-name.v1')),
      stationsNear: () => Promise.reject(new Error('down')),
    };
    const ingestion = new IngestionService(eventStore, down, new PropertyMatcher(), { now });
    const reply = await ingestion.ingest([fresh(), fresh({ commune: { zipcode: '69003', name: 'Lyon' } })]);
    expect(reply.results[0]).toMatchObject({ status: 'accepted', events: [ADVERT_EVENT_TYPES.published, ADVERT_EVENT_TYPES.assignedToProperty] });
    expect(reply.results[1]).toMatchObject({ status: 'rejected', violations: [{ propertyPath: 'commune', message: expect.stringMatching(/retry later/) }] });
    expect(await eventStore.readStream(advertStreamName(reply.results[1]?.advertId ?? ''))).toEqual([]);
  });

  it('makes the geo look-ups of a batch with its request id', async () => {
    const asked: [string, string | null | undefined][] = [];
    const recording: GeoLookup = {
      ...geo,
      cityByInsee: (insee, requestId) => (asked.push([insee, requestId]), geo.cityByInsee(insee)),
      inseeOf: (zipcode, name, requestId) => (asked.push([`${zipcode} ${name}`, requestId]), geo.inseeOf(zipcode, name)),
    };
    const ingestion = new IngestionService(eventStore, recording, new PropertyMatcher(), { now });
    await ingestion.ingest([fresh(), fresh({ commune: { zipcode: '69003', name: 'Lyon' } })], { requestId: 'crawl-0011' });
    await ingestion.ingest([fresh()]);
    expect(asked).toEqual([
      [LYON.insee, 'crawl-0011'],
      ['69003 Lyon', 'crawl-0011'],
      [LYON.insee, null],
    ]);
  });

  it('rejects invalid snapshots without appending anything for them', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const bad = { ...fresh(), price: -1 };
    const reply = await ingestion.ingest([bad]);
    expect(reply.results[0]).toMatchObject({ status: 'rejected', violations: [expect.objectContaining({ propertyPath: 'price' })] });
  });

  it('counts snapshots by outcome for the metrics: changed, unchanged, rejected', async () => {
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now });
    const snapshot = fresh();
    await ingestion.ingest([snapshot, { ...fresh(), price: -1 }]);
    await ingestion.ingest([snapshot]);
    expect(ingestion.counters).toEqual({ changed: 1, unchanged: 1, rejected: 1 });
  });
});
