import { connect, type NatsConnection } from 'nats';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { lastPublishedOutboxId, openOutboxPublisher, type StreamSettings } from './integration-streams';
import { OutboxRelay, outboxId, type OutboxRecord } from './outbox-relay';

const COLLECTIONS = { outbox: { name: 'replica_outbox', indexes: [] }, deadLetters: { name: 'replica_dead_letters', indexes: [] } };
/** A duplicate window of one second: a replica that publishes later than that is not deduplicated by the broker. */
const STREAM: StreamSettings = { name: 'OUTBOX_REPLICAS_TEST', subjects: ['test.outbox.>'], duplicate_window: 1_000_000_000 };

/** The outbox every replica's projection fills from the same log. */
async function replicaOutbox(): Promise<EmbeddedDocumentStore> {
  const store = new EmbeddedDocumentStore();
  const records: OutboxRecord[] = Array.from({ length: 20 }, (_, i) => ({
    _id: outboxId(1000 * (i + 1), 0),
    revision: 1000 * (i + 1),
    subject: 'test.outbox.changed',
    eventId: `event-${i}`,
    payload: JSON.stringify({ position: 1000 * (i + 1) }),
  }));
  await store.collection<OutboxRecord>(COLLECTIONS.outbox).bulkUpsert(records);
  return store;
}

describe('outboxes of replicas that project the same log (real JetStream)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
  });

  afterAll(async () => {
    await nats?.close();
    await server?.stop();
  });

  const messages = async () => (await (await nats.jetstreamManager()).streams.info(STREAM.name)).state.messages;

  it('a replica that comes back after the duplicate window drops what another replica published instead of publishing it again', async () => {
    const publish = await openOutboxPublisher(nats, STREAM);
    const first = await replicaOutbox();
    const leader = new OutboxRelay(first, publish, COLLECTIONS);
    leader.start();
    expect(await leader.settled(5000)).toBe(true);
    expect(await messages()).toBe(20);
    expect(await lastPublishedOutboxId(nats, STREAM.name)).toBe(outboxId(20_000, 0));

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await replicaOutbox();
    const late = new OutboxRelay(second, publish, { ...COLLECTIONS, alreadyPublished: () => lastPublishedOutboxId(nats, STREAM.name), publishes: () => false });
    late.start();
    expect(await late.settled(5000)).toBe(true);
    expect(late.skippedCount).toBe(20);
    expect(await messages()).toBe(20);

    // A replica that does not publish leaves what the stream lacks for the publishing one: nothing
    // newer reaches the stream before something older.
    const ahead = await replicaOutbox();
    await ahead.collection<OutboxRecord>(COLLECTIONS.outbox).bulkUpsert([
      { _id: outboxId(21_000, 0), revision: 21_000, subject: 'test.outbox.changed', eventId: 'event-20', payload: '{"position":21000}' },
    ]);
    const follower = new OutboxRelay(ahead, publish, { ...COLLECTIONS, alreadyPublished: () => lastPublishedOutboxId(nats, STREAM.name), publishes: () => false });
    follower.start();
    expect(await follower.settled(1500)).toBe(false);
    expect(await follower.pending()).toBe(1);
    expect(await messages()).toBe(20);
    await follower.stop();
    await ahead.close();

    // Without the check, the broker takes them all again.
    const third = await replicaOutbox();
    const unchecked = new OutboxRelay(third, publish, COLLECTIONS);
    unchecked.start();
    expect(await unchecked.settled(5000)).toBe(true);
    expect(await messages()).toBe(40);
    for (const relay of [leader, late, unchecked]) await relay.stop();
    for (const store of [first, second, third]) await store.close();
  });
});
