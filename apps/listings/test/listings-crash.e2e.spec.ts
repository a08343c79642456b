import { connect, type ConnectionOptions } from 'nats';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { JetStreamEventStore } from '@immo/event-store';
import type { ListingsIntegrationEvent } from '@immo/contracts';
import { NatsRpcClient } from '@immo/service-kit';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { generateDataset } from '../demo/generate-snapshots';
import { GeoDirectoryClient } from '../src/geo/geo-directory.client';
import { createListingsProjections } from '../src/projection/create-projections';
import { adminHeaders, allDocuments, ingestUntilAccepted, publishedEvents, settled } from './listings-fixture';

/** The integration events the stack's event log implies, derived by an independent in-process run. */
async function expectedEvents(options: ConnectionOptions): Promise<Map<string, ListingsIntegrationEvent>> {
  const nats = await connect(options);
  const eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'LISTINGS_EVENTS', subjectPrefix: 'es.listings' });
  const store = new EmbeddedDocumentStore();
  const recorded = new Map<string, ListingsIntegrationEvent>();
  const projections = createListingsProjections({
    eventStore,
    store,
    geo: new GeoDirectoryClient(new NatsRpcClient(nats, 2000)),
    publish: async (_subject, eventId, payload) => void recorded.set(eventId, JSON.parse(payload) as ListingsIntegrationEvent),
  });
  try {
    await projections.runner.start();
    projections.relay.start();
    const head = await eventStore.headPosition();
    if (head !== null) await projections.runner.waitFor(head);
    expect(await projections.relay.settled(30_000)).toBe(true);
    return recorded;
  } finally {
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
    await eventStore.close();
    await nats.close();
  }
}

describe('listings under kill -9 (whole stack from dist/)', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    fixture = await startStackFixture();
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  it('loses nothing when listings is killed at random points during ingestion: documents equal a rebuild, every integration event is published once', async () => {
    const { snapshots } = generateDataset({ seed: 31, goods: 160 });
    // Kills land at seeded pseudo-random moments (mid-batch, mid-commit, between commit and publish).
    let seed = 17;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let ingesting = true;
    let kills = 0;
    const chaos = (async () => {
      while (ingesting && kills < 4) {
        await new Promise((r) => setTimeout(r, 400 + random() * 1200));
        if (!ingesting) break;
        await fixture.stack.killApp('listings');
        kills++;
        await new Promise((r) => setTimeout(r, 100 + random() * 400));
        await fixture.stack.restartApp('listings');
      }
    })();
    for (let i = 0; i < snapshots.length; i += 60) {
      const reply = await ingestUntilAccepted(fixture, snapshots.slice(i, i + 60));
      expect(reply.rejected).toBe(0);
    }
    ingesting = false;
    await chaos;
    expect(kills).toBeGreaterThanOrEqual(2);

    await settled(fixture);
    const documents = await allDocuments(fixture);
    expect(documents.size).toBeGreaterThan(80);

    // Every integration event the log implies was published, none twice.
    const published = await publishedEvents(fixture.stack.natsConnectOptions('searches'));
    const ids = published.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = await expectedEvents(fixture.stack.natsConnectOptions('listings'));
    expect(new Set(ids)).toEqual(new Set(expected.keys()));

    // The read models equal what a rebuild from the log gives.
    const rebuild = await fixture.send('POST', '/admin/read-models/properties/rebuild', {}, adminHeaders(fixture));
    expect(rebuild.status).toBe(202);
    await settled(fixture);
    const rebuilt = await allDocuments(fixture);
    expect(rebuilt.size).toBe(documents.size);
    for (const [id, document] of documents) expect(rebuilt.get(id)).toEqual(document);
  }, 300_000);
});
