import { Logger } from '@nestjs/common';
import { connect, type NatsConnection } from 'nats';
import { LISTINGS_INTEGRATION_SUBJECTS, type AlertNotification, type PropertyChangedEvent, type PropertyDocument } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { aPropertyDocument } from '@immo/property-criteria/testing';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import type { AlertingSearch } from './alert-decisions';
import { AlertMatcher } from './alert-matcher';
import type { MatchableSearches } from './matchable-searches';
import { PROPERTY_VERSIONS_COLLECTION, type PropertyVersionDoc } from '../projection/read-models';

const SEARCH: AlertingSearch = {
  id: 'a1b2c3d4-1111-4aaa-8bbb-000000000001',
  accountId: '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
  createdAtMs: 0,
  notificationEnabled: true,
  endpointRecipient: 'https://hooks.example.com/matches',
  eventEndpoint: null,
  subscribedEvents: [],
  hidePropertyContact: false,
  title: 'Cheap flats',
  notificationRecipient: null,
  unsubscribeToken: 'token-of-the-search',
};
const CHEAP = 250_000;

/** The saved searches: flats under 250,000 €. */
const saved: AlertingSearch[] = [SEARCH];
const cheapFlats = { matching: (document: PropertyDocument) => (document.price < CHEAP ? saved : []) } as unknown as MatchableSearches;

async function eventually<T>(read: () => T, accept: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (accept(value)) return value;
    if (Date.now() > until) throw new Error(`not reached within ${timeoutMs} ms; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('AlertMatcher on a real JetStream stream', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let store: EmbeddedDocumentStore;
  let matcher: AlertMatcher;
  const published: AlertNotification[] = [];

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    server = await startNatsServer({ jetstream: true });
    nats = await connect({ servers: server.url });
    store = new EmbeddedDocumentStore();
    matcher = new AlertMatcher(nats, store, cheapFlats, async (_subject, _id, payload) => {
      published.push(JSON.parse(payload) as AlertNotification);
    });
    await matcher.start();
  });

  afterAll(async () => {
    await matcher?.stop();
    await store?.close();
    await nats?.close();
    await server?.stop();
    jest.restoreAllMocks();
  });

  function changed(document: PropertyDocument, position: number | undefined): PropertyChangedEvent {
    return { id: `property-changed:${document.uuid}:${position ?? 'none'}`, type: 'property.changed', propertyId: document.uuid, occurredAt: '2026-03-05T08:00:00.000Z', position, changedFields: ['price'], document };
  }

  async function publish(event: PropertyChangedEvent): Promise<void> {
    await nats.jetstream().publish(LISTINGS_INTEGRATION_SUBJECTS.propertyChanged, JSON.stringify(event), { msgID: event.id });
  }

  it('drops an event older than the newest applied for its property, so an older document is never judged after a newer one', async () => {
    const property = aPropertyDocument({ uuid: '0b6f7a1e-3c2d-4e5f-8a9b-000000000001' });
    // Position 20 (too dear) arrives before position 10 (cheap, since superseded), as a retried publish leaves them.
    await publish(changed({ ...property, price: 300_000, title: 'at position 20' }, 20));
    await publish(changed({ ...property, price: 200_000, title: 'at position 10' }, 10));
    await publish(changed({ ...property, price: 210_000, title: 'at position 30' }, 30));

    const [notification] = await eventually(() => published.filter((n) => n.propertyId === property.uuid), (list) => list.length > 0);
    await eventually(() => matcher.counters.events + matcher.counters.outOfOrder, (seen) => seen >= 3);
    expect(published.filter((n) => n.propertyId === property.uuid)).toHaveLength(1);
    expect(notification?.payload).toContain('at position 30');
    expect(matcher.counters.outOfOrder).toBe(1);
  });

  it('drops an event published again (another message id, past the duplicate window), so a search saved since gets no match for an old document', async () => {
    const property = aPropertyDocument({ uuid: '0b6f7a1e-3c2d-4e5f-8a9b-000000000003' });
    const event = changed({ ...property, price: 200_000, title: 'once' }, 60);
    await publish(event);
    await eventually(() => published.filter((n) => n.propertyId === property.uuid), (list) => list.length === 1);
    saved.push({ ...SEARCH, id: 'a1b2c3d4-1111-4aaa-8bbb-000000000009', createdAtMs: Date.now() });
    const dropped = matcher.counters.outOfOrder;
    await nats.jetstream().publish(LISTINGS_INTEGRATION_SUBJECTS.propertyChanged, JSON.stringify(event), { msgID: `${event.id}:again` });
    await eventually(() => matcher.counters.outOfOrder, (count) => count === dropped + 1);
    expect(published.filter((n) => n.propertyId === property.uuid)).toHaveLength(1);
    saved.pop();
  });

  it('applies events that carry no position (published before positions were added) as they come', async () => {
    const property = aPropertyDocument({ uuid: '0b6f7a1e-3c2d-4e5f-8a9b-000000000002' });
    await publish(changed({ ...property, price: 300_000 }, 50));
    await publish(changed({ ...property, price: 200_000, title: 'without a position' }, undefined));
    const [notification] = await eventually(() => published.filter((n) => n.propertyId === property.uuid), (list) => list.length > 0);
    expect(notification?.payload).toContain('without a position');
  });
});

describe('AlertMatcher replicas sharing one store', () => {
  it('decides again when another replica applied a newer event of the property between its read and its commit, and drops its older one', async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const server = await startNatsServer({ jetstream: true });
    const nats = await connect({ servers: server.url });
    const store = new EmbeddedDocumentStore();
    const versions = store.collection<PropertyVersionDoc>(PROPERTY_VERSIONS_COLLECTION);
    const property = aPropertyDocument({ uuid: '0b6f7a1e-3c2d-4e5f-8a9b-000000000004' });
    let otherReplicaWent = false;
    // The other replica commits its newer event of the property just before this one's commit.
    const racing = new Proxy(store, {
      get(target, name) {
        if (name !== 'commit') return Reflect.get(target, name, target) as unknown;
        return async (...args: Parameters<EmbeddedDocumentStore['commit']>) => {
          if (!otherReplicaWent) {
            otherReplicaWent = true;
            await versions.upsert({ _id: property.uuid, revision: 90 });
          }
          return target.commit(...args);
        };
      },
    });
    const published: AlertNotification[] = [];
    const matcher = new AlertMatcher(nats, racing, cheapFlats, async (_subject, _id, payload) => {
      published.push(JSON.parse(payload) as AlertNotification);
    });
    try {
      await matcher.start();
      const event: PropertyChangedEvent = {
        id: 'property-changed:race:80',
        type: 'property.changed',
        propertyId: property.uuid,
        occurredAt: '2026-03-05T08:00:00.000Z',
        position: 80,
        changedFields: ['price'],
        document: { ...property, price: 200_000 },
      };
      await nats.jetstream().publish(LISTINGS_INTEGRATION_SUBJECTS.propertyChanged, JSON.stringify(event), { msgID: event.id });
      await eventually(() => matcher.counters.outOfOrder + matcher.counters.events, (seen) => seen >= 1);
      expect(matcher.counters).toMatchObject({ outOfOrder: 1, events: 0, notifications: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(published).toEqual([]);
      expect((await versions.findById(property.uuid))?.revision).toBe(90);
    } finally {
      await matcher.stop();
      await store.close();
      await nats.close();
      await server.stop();
      jest.restoreAllMocks();
    }
  });
});
