import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { createDocumentStore, type DocumentStore } from '@immo/document-store';
import { JetStreamEventStore } from '@immo/event-store';
import { LISTINGS_INTEGRATION_STREAM, type City } from '@immo/contracts';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { generateDataset } from '../../demo/generate-snapshots';
import { PropertyMatcher } from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import { IngestionService } from '../ingestion/ingestion.service';
import { IntegrationPublisher } from './integration-publisher';
import { PropertyProjection } from './property-projection';
import { PROPERTIES_COLLECTION, type PropertyRecord } from './read-models';

/** Reference data is the geo service's business; here a deterministic stand-in answers. */
const geo: GeoLookup = {
  async cityByInsee(insee: string): Promise<City | null> {
    return {
      id: Number(insee.replace(/^2A/, '201').replace(/^2B/, '202')),
      cityParentId: null,
      name: `Commune ${insee}`,
      originalName: `Commune ${insee}`,
      insee,
      zipcode: null,
      open: true,
      hasGroupedByName: false,
      hasGroupedByZipcode: false,
      groupedCityNames: [],
      groupedCityZipcodes: [],
      country: { code: 'FR', id: 1, name: 'France' },
      department: { code: insee.slice(0, 2), id: 1, name: 'Département' },
      region: { code: '11', id: 11, name: 'Région' },
      locations: { lat: 45, lon: 4 },
    };
  },
  async inseeOf() {
    return null;
  },
  async stationsNear() {
    return [{ id: 1, name: 'Gare', lines: [{ id: 1, name: 'Ligne 1', number: '1', color: '#FFCD00', routeName: 'A – B' }] }];
  },
};

async function documentsOf(store: DocumentStore): Promise<PropertyRecord['document'][]> {
  const records = await store.collection<PropertyRecord>(PROPERTIES_COLLECTION).find({}, { sort: { _id: 1 } });
  return records.map((record) => record.document);
}

describe('property projection (real JetStream event store, embedded read models)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  let publisher: IntegrationPublisher;

  /** Appends a marker and waits until the projection has applied everything before it. */
  async function caughtUp(projection: PropertyProjection): Promise<void> {
    const marker = await eventStore.append(`marker-${randomUUID()}`, [{ id: randomUUID(), type: 'Marker', data: {} }], { expectedRevision: 'no_stream' });
    await projection.waitFor(marker.position);
  }

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'LISTINGS_TEST', subjectPrefix: 'es.test' });
    publisher = await IntegrationPublisher.open(nats);
  });

  afterAll(async () => {
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
  });

  it('builds documents incrementally, survives a replay, and a rebuild yields the same documents and ids', async () => {
    const store = createDocumentStore({ kind: 'embedded' });
    const matcher = new PropertyMatcher();
    const projection = new PropertyProjection({ eventStore, store, geo, publisher, matcher });
    await projection.start();
    const ingestion = new IngestionService(eventStore, geo, matcher, () => new Date('2027-01-01T00:00:00Z'));

    // Time-ordered snapshots: publications, price drops, surface corrections, expiries, several publishers per good.
    const { snapshots } = generateDataset({ seed: 7, goods: 120 });
    for (let i = 0; i < snapshots.length; i += 100) {
      const reply = await ingestion.ingest(snapshots.slice(i, i + 100));
      expect(reply.rejected).toBe(0);
    }
    await caughtUp(projection);
    const incremental = await documentsOf(store);
    expect(incremental.length).toBeGreaterThan(50);
    expect(incremental.some((doc) => doc.adverts.length > 1)).toBe(true);
    expect(incremental.some((doc) => doc.adverts.some((advert) => advert.events.some((e) => e.fieldName === 'price' && e.percentVariation < 0)))).toBe(true);

    // Replaying every event again over the same read models changes nothing.
    await projection.stop();
    await store.collection({ name: 'listings_checkpoints', indexes: [] }).clear();
    const replay = new PropertyProjection({ eventStore, store, geo, publisher, matcher: new PropertyMatcher() });
    await replay.start();
    await caughtUp(replay);
    expect(await documentsOf(store)).toEqual(incremental);

    // Dropping the read models and rebuilding from the log gives the same ids and documents.
    await replay.rebuild();
    await caughtUp(replay);
    expect(await documentsOf(store)).toEqual(incremental);
    await replay.stop();
  }, 60_000);

  it('publishes integration events once per change, even when the projection replays', async () => {
    const jsm = await nats.jetstreamManager();
    const store = createDocumentStore({ kind: 'embedded' });
    const matcher = new PropertyMatcher();
    const projection = new PropertyProjection({ eventStore, store, geo, publisher, matcher });
    const ingestion = new IngestionService(eventStore, geo, matcher, () => new Date('2027-01-01T00:00:00Z'));
    await projection.start();
    await caughtUp(projection);
    const { snapshots } = generateDataset({ seed: 99, goods: 10 });
    await ingestion.ingest(snapshots);
    await caughtUp(projection);
    await publisher.settle();
    const before = (await jsm.streams.info(LISTINGS_INTEGRATION_STREAM)).state.messages;
    expect(before).toBeGreaterThan(0);

    await projection.rebuild();
    await caughtUp(projection);
    await publisher.settle();
    expect((await jsm.streams.info(LISTINGS_INTEGRATION_STREAM)).state.messages).toBe(before);
    await projection.stop();
  }, 60_000);
});
