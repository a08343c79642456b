import { connect, StorageType, type NatsConnection } from 'nats';
import { startNatsCluster, type RunningNatsCluster } from '@immo/testing';
import { ensureStream } from './ensure-stream';
import { JetStreamEventStore } from './jetstream-event-store';

/** On a real three-node JetStream cluster, as production runs (NATS_REPLICAS=3). */
describe('replicated JetStream streams (3-node nats-server cluster on loopback)', () => {
  let cluster: RunningNatsCluster;
  let nats: NatsConnection;

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    nats = await connect({ servers: cluster.urls.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  }, 60_000);

  afterAll(async () => {
    await nats?.close();
    await cluster?.stop();
  });

  it('creates a stream with the replica count asked, and moves an existing stream to it', async () => {
    const jsm = await nats.jetstreamManager();
    await ensureStream(jsm, { name: 'ONE_COPY', subjects: ['one-copy.>'], storage: StorageType.File, num_replicas: 1 });
    expect((await jsm.streams.info('ONE_COPY')).config.num_replicas).toBe(1);
    await ensureStream(jsm, { name: 'ONE_COPY', subjects: ['one-copy.>'], storage: StorageType.File, num_replicas: 3 });
    expect((await jsm.streams.info('ONE_COPY')).config.num_replicas).toBe(3);
    // Once the new copies have caught up, the stream lives on all three nodes.
    const until = Date.now() + 15_000;
    for (;;) {
      const { cluster: placement } = await jsm.streams.info('ONE_COPY');
      const current = (placement?.replicas ?? []).filter((replica) => replica.current).map((replica) => replica.name);
      if (new Set([placement?.leader, ...current]).size === 3) break;
      if (Date.now() > until) throw new Error(`the stream is on ${JSON.stringify(placement)} only`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 30_000);

  it('keeps every committed event of a three-copy event store when the node holding its leader is killed, and takes appends again', async () => {
    const events = await JetStreamEventStore.connect({ servers: nats, streamName: 'REPLICATED_EVENTS', subjectPrefix: 'es.replicated', replicas: 3 });
    try {
      for (let i = 0; i < 20; i++) await events.append(`advert-${i}`, [{ id: `e-${i}`, type: 'Seen', data: { i } }], { expectedRevision: 'no_stream' });
      const jsm = await nats.jetstreamManager();
      const leader = (await jsm.streams.info('REPLICATED_EVENTS')).cluster?.leader;
      const node = cluster.nodes.find((candidate) => candidate.name === leader);
      expect(node).toBeDefined();
      await node?.kill();

      // A new leader among the two others takes the next append (retried while it is elected).
      const until = Date.now() + 20_000;
      for (;;) {
        try {
          await events.append('advert-after-kill', [{ id: 'e-after', type: 'Seen', data: { i: 20 } }], { expectedRevision: 'no_stream' });
          break;
        } catch (error) {
          if (Date.now() > until) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      for (let i = 0; i < 20; i++) expect((await events.readStream(`advert-${i}`)).map((event) => event.data)).toEqual([{ i }]);
      expect((await events.readStream('advert-after-kill')).map((event) => event.data)).toEqual([{ i: 20 }]);
      await node?.start();
    } finally {
      await events.close();
    }
  }, 60_000);
});
