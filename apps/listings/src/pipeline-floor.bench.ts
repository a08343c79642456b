import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LISTINGS_INTEGRATION_SUBJECTS, type AdvertSnapshot } from '@immo/contracts';
import { createDocumentStore, type DocumentStore, type StoredDocument } from '@immo/document-store';
import type { EventStore, RecordedEvent } from '@immo/event-store';
import { connectNats, eventLoopSlice, LISTINGS_INTEGRATION_STREAM_SETTINGS, OutboxRelay, openEventStore, openOutboxPublisher, outboxId, type OutboxRecord } from '@immo/service-kit';
import { cpuPerItem, describeCpuPerItem, describeSteal, startNatsServer, StackCpuMeter, StealMeter, type Measurement, type Scenario } from '@immo/testing';
import { generateDataset } from '../demo/generate-snapshots';
import { ADVERT_STREAM_PREFIX, advertIdOf, advertStreamName } from './domain';
import { ADVERTS_COLLECTION, CHECKPOINTS_COLLECTION, DEAD_LETTERS_COLLECTION, OUTBOX_COLLECTION, PROPERTIES_COLLECTION } from './projection/read-models';
import { UnitOfWork } from './projection/unit-of-work';

const SNAPSHOTS = Number(process.env['FLOOR_SNAPSHOTS'] ?? 50_000);
/** As ingestion: appends under way at once. */
const APPENDS_IN_FLIGHT = 64;
/** As the projections: events per committed batch. */
const EVENTS_PER_COMMIT = 100;
/** As a load of new goods: about one snapshot in two creates an advert, which is announced. */
const ANNOUNCED_SHARE = 2;
/** How long the relay may take to publish what the last commits put in the outbox before the run fails. */
const PUBLISH_WAIT_MS = 60_000;

/**
 * What the listings pipeline costs per snapshot in storage and messaging alone, through the
 * service's own adapters, with every piece of its domain left out: each snapshot is appended as
 * one commit to a new advert stream (64 appends in flight, as ingestion), read back by a
 * subscription to the log, and committed in batches of 100 with its advert state, a property
 * document, the projections' checkpoint and, for one in two, an integration event in the outbox,
 * which the outbox relay publishes. No HTTP, no validation, no decisions, no grouping, no document
 * built, no search index, no subscriber matching: the part of a snapshot's CPU that the pipeline's
 * shape takes before any of its work. `listings-scale` measures it in its own run and reads its
 * phases' CPU per snapshot as multiples of it.
 */
const floor: Scenario = {
  name: 'listings-pipeline-floor',
  description: `append ${SNAPSHOTS} snapshots to the event store, project them (state, document, checkpoint, outbox for one in ${ANNOUNCED_SHARE}) and publish their integration events, with no domain work: the CPU the pipeline's storage and messaging take per snapshot`,
  run: async () => [(await measurePipelineFloor(SNAPSHOTS)).measurement],
};

/** One measurement of the pipeline floor: its row, and the figure other scenarios compare with. */
export interface PipelineFloor {
  measurement: Measurement;
  /**
   * CPU milliseconds per snapshot of all the floor's processes together (this process, which
   * appends, projects and relays, and nats-server); null when not measured (no /proc).
   */
  cpuPerSnapshotMs: number | null;
}

/** Runs the pipeline floor (see `floor`) over `snapshotCount` snapshots, on a NATS server of its own. */
export async function measurePipelineFloor(snapshotCount: number): Promise<PipelineFloor> {
  const snapshots = generateDataset({ goods: Math.ceil(snapshotCount / 1.9), seed: 7 }).snapshots.slice(0, snapshotCount);
  const nats = await startNatsServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-floor-'));
  // One connection and the event store on it, opened as the service opens them, so that the
  // client settings are the service's. The document store as `openDocumentStore` opens it, but
  // without its exit on a failed write (this process is the benchmark, not a service).
  const connection = await connectNats({ NATS_URL: nats.url, NATS_CONNECT_TIMEOUT_MS: 5_000 }, { name: 'pipeline-floor', principal: null });
  const events = await openEventStore('listings', { EVENT_STORE: 'jetstream', NATS_REPLICAS: 1 }, connection);
  const store = createDocumentStore({ kind: 'embedded', dataDir, yieldToEventLoop: () => eventLoopSlice.yieldIfSpent() });
  try {
    for (const spec of [ADVERTS_COLLECTION, PROPERTIES_COLLECTION, CHECKPOINTS_COLLECTION]) store.collection(spec);
    const relay = new OutboxRelay(store, await openOutboxPublisher(connection, LISTINGS_INTEGRATION_STREAM_SETTINGS), {
      outbox: OUTBOX_COLLECTION,
      deadLetters: DEAD_LETTERS_COLLECTION,
    });
    relay.start();
    const cpu = new StackCpuMeter(() => ({ listings: process.pid, 'nats-server': nats.pid }));
    const steal = new StealMeter();
    const started = performance.now();
    const projected = project(store, events.subscribeToAll({ streamPrefixes: [ADVERT_STREAM_PREFIX] }), snapshots.length, relay);
    await appendAll(events, snapshots);
    await projected;
    await allPublished(relay, Math.ceil(snapshots.length / ANNOUNCED_SHARE));
    const wallMs = performance.now() - started;
    const used = cpu.stop();
    await relay.stop();
    const measurement: Measurement = {
      label: `${snapshots.length} snapshots appended, projected and announced, no domain work`,
      samplesMs: [wallMs],
      wallMs,
      operations: snapshots.length,
      notes: `${describeCpuPerItem(used, snapshots.length, 'snapshot')}, "listings" being this process, appending, projecting and relaying; ${relay.publishedCount} integration events published; ${describeSteal(steal.stop())}`,
    };
    return { measurement, cpuPerSnapshotMs: cpuPerItem(used, snapshots.length)?.totalMs ?? null };
  } finally {
    await events.close();
    await store.close();
    await connection.close();
    await nats.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Waits until the relay has published `announced` integration events, the last commits' included. */
async function allPublished(relay: OutboxRelay, announced: number): Promise<void> {
  const deadline = Date.now() + PUBLISH_WAIT_MS;
  while (relay.publishedCount < announced) {
    if (Date.now() > deadline) throw new Error(`${relay.publishedCount} of ${announced} integration events published ${PUBLISH_WAIT_MS / 1000} s after the last commit`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Each snapshot as the first commit of its own advert stream, `APPENDS_IN_FLIGHT` at a time. */
async function appendAll(events: EventStore, snapshots: readonly AdvertSnapshot[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < snapshots.length; i = next++) {
      const snapshot = snapshots[i] as AdvertSnapshot;
      const stream = `${advertStreamName(advertIdOf(snapshot))}-${i}`;
      await events.append(stream, [{ id: `floor-${i}`, type: 'AdvertPublished', data: snapshot }], { expectedRevision: 'no_stream' });
    }
  };
  await Promise.all(Array.from({ length: APPENDS_IN_FLIGHT }, worker));
}

/** Reads `count` events back and commits what a projection of them writes, a batch at a time. */
async function project(store: DocumentStore, log: AsyncIterable<RecordedEvent>, count: number, relay: OutboxRelay): Promise<void> {
  let uow = new UnitOfWork(store);
  let seen = 0;
  for await (const event of log) {
    seen++;
    const advertId = event.streamName.slice(ADVERT_STREAM_PREFIX.length);
    const state = event.data as AdvertSnapshot;
    const document = { propertyId: `property-${advertId}`, adverts: [state], lastCrawledAt: state.seenAt };
    uow.put(ADVERTS_COLLECTION.name, { _id: advertId, revision: event.position, position: event.position, state } as StoredDocument);
    uow.put(PROPERTIES_COLLECTION.name, { _id: document.propertyId, revision: event.position, document } as StoredDocument);
    if (seen % ANNOUNCED_SHARE === 1) {
      const payload = JSON.stringify({ id: `${advertId}:0:property.ad.create`, type: 'advert.event', kind: 'property.ad.create', advertId, document });
      const record: OutboxRecord = { _id: outboxId(event.position, 0), revision: event.position, subject: LISTINGS_INTEGRATION_SUBJECTS.advertEvent('property.ad.create'), eventId: `${advertId}:0`, payload };
      uow.put(OUTBOX_COLLECTION.name, record);
    }
    uow.checkpoint('floor', event.position);
    uow.events++;
    if (uow.events >= EVENTS_PER_COMMIT || seen === count) {
      const committed = uow;
      uow = new UnitOfWork(store);
      await committed.commit(CHECKPOINTS_COLLECTION.name);
      relay.kick(committed.writtenTo<OutboxRecord>(OUTBOX_COLLECTION.name));
    }
    if (seen === count) return;
  }
}

export const benchScenarios: Scenario[] = [floor];
