import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JSONCodec, connect, type ConnectionOptions } from 'nats';
import { JetStreamEventStore } from '@immo/event-store';
import { LISTINGS_SUBJECTS, type AdvertSnapshot, type IngestAdvertsReply } from '@immo/contracts';
import { NatsRpcClient } from '@immo/service-kit';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { startNatsServer } from '@immo/testing';
import { generateDataset } from '../demo/generate-snapshots';
import { PropertyMatcher } from '../src/domain';
import { GeoDirectoryClient } from '../src/geo/geo-directory.client';
import { IngestionService } from '../src/ingestion/ingestion.service';
import { allDocuments, ingestUntilAccepted, settled, status } from './listings-fixture';

const codec = JSONCodec<unknown>();
const BATCH = 25;

/**
 * Advert → property as one instance ingesting the batches one after the other decides it: its
 * events on a nats-server of its own, its geo look-ups from the stack's geo service (as listings).
 */
async function sequentialGrouping(stackNats: ConnectionOptions, snapshots: AdvertSnapshot[]): Promise<Map<string, string>> {
  const eventServer = await startNatsServer();
  const nats = await connect(stackNats);
  const eventStore = await JetStreamEventStore.connect({ servers: eventServer.url, streamName: 'BASELINE_EVENTS', subjectPrefix: 'es.baseline' });
  try {
    const ingestion = new IngestionService(eventStore, new GeoDirectoryClient(new NatsRpcClient(nats, 2000)), new PropertyMatcher());
    const grouping = new Map<string, string>();
    for (let i = 0; i < snapshots.length; i += BATCH) {
      for (const result of (await ingestion.ingest(snapshots.slice(i, i + BATCH))).results) {
        if (result.status === 'accepted' && result.propertyId && !grouping.has(result.advertId)) grouping.set(result.advertId, result.propertyId);
      }
    }
    return grouping;
  } finally {
    await eventStore.close();
    await nats.close();
    await eventServer.stop();
  }
}

/** Until the leader's and the follower's status (the queue group answers from either) show one checkpoint. */
async function replicasAtOneCheckpoint(fixture: StackFixture, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  const latest = new Map<boolean, number | null>();
  for (;;) {
    const current = await status(fixture);
    latest.set(current.leadsIngestion, current.checkpoint);
    if (latest.size === 2 && latest.get(true) === latest.get(false) && current.outboxPending === 0) return;
    if (Date.now() > until) throw new Error(`the replicas did not reach one checkpoint in time: ${JSON.stringify([...latest])}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('listings replicas and NATS ingestion (whole stack from dist/)', () => {
  let fixture: StackFixture;
  const replicaDir = mkdtempSync(join(tmpdir(), 'listings-replica-'));

  beforeAll(async () => {
    fixture = await startStackFixture();
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
    rmSync(replicaDir, { recursive: true, force: true });
  });

  it('answers a plain JSON ingestion request sent with the nats client alone', async () => {
    const { snapshots } = generateDataset({ seed: 5, goods: 3 });
    // A crawler inside the cluster, with its own NATS user.
    const nats = await connect(fixture.stack.natsConnectOptions('crawler'));
    try {
      const message = await nats.request(LISTINGS_SUBJECTS.ingestAdverts, codec.encode({ snapshots: snapshots.slice(0, 4) }), { timeout: 15_000 });
      const reply = codec.decode(message.data) as IngestAdvertsReply;
      expect(reply).toMatchObject({ accepted: 4, rejected: 0 });
      expect(reply.results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);

      const bad = codec.decode((await nats.request(LISTINGS_SUBJECTS.ingestAdverts, codec.encode({ snapshots: [] }), { timeout: 15_000 })).data);
      expect(bad).toMatchObject({ status: 400, violations: [expect.objectContaining({ propertyPath: 'snapshots' })] });
    } finally {
      await nats.close();
    }
  });

  it('groups like one instance when two replicas receive the same goods concurrently: no duplicate property', async () => {
    await fixture.stack.startReplica('listings', 'listings-2', { DATA_DIR: replicaDir, HEALTH_PORT: '0' });
    // Both replicas answer (the queue group spreads requests), and exactly one leads ingestion.
    const leaders = new Set<boolean>();
    const deadline = Date.now() + 30_000;
    while (leaders.size < 2 && Date.now() < deadline) leaders.add((await status(fixture)).leadsIngestion);
    expect([...leaders].sort()).toEqual([false, true]);

    // Many goods with several publishers: their adverts race into the two replicas.
    const { snapshots } = generateDataset({ seed: 41, goods: 150, multiPublisherShare: 0.8 });
    const send = async () => {
      for (let i = 0; i < snapshots.length; i += BATCH) expect((await ingestUntilAccepted(fixture, snapshots.slice(i, i + BATCH))).rejected).toBe(0);
    };
    await Promise.all([send(), send()]);
    await settled(fixture);
    // Each replica projects the log into its own read models, and the pages below may come from
    // either: wait until the leader and the follower report the same checkpoint.
    await replicasAtOneCheckpoint(fixture);

    const baseline = await sequentialGrouping(fixture.stack.natsConnectOptions('listings'), snapshots);
    const documents = await allDocuments(fixture);
    const grouping = new Map<string, string>();
    for (const document of documents.values()) {
      for (const advert of document.adverts) if (baseline.has(advert.uuid)) grouping.set(advert.uuid, document.uuid);
    }
    expect(new Set(grouping.values()).size).toBe(new Set(baseline.values()).size);
    expect(grouping).toEqual(baseline);
  }, 300_000);
});
