import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { CommitConflictError, EmbeddedDocumentStore, type CommitOptions, type DocumentStore, type DocumentWrite, type StoredDocument } from '@immo/document-store';
import { JetStreamEventStore, type AllSubscription, type EventStore, type SubscribeToAllOptions } from '@immo/event-store';
import { LISTINGS_INTEGRATION_STREAM, type ListingsIntegrationEvent } from '@immo/contracts';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { generateDataset } from '../../demo/generate-snapshots';
import { publishedEvents } from '../../test/listings-fixture';
import { PropertyMatcher } from '../domain';
import type { GeoLookup } from '../geo/geo-directory.client';
import { geoStandIn as geo } from './geo-lookup.fixture';
import { IngestionService, type ProjectedAdvertLookup } from '../ingestion/ingestion.service';
import { criteriaOf } from '../search/property-document.fixture';
import { createListingsProjections, type ListingsProjections } from './create-projections';
import { LISTINGS_INTEGRATION_STREAM_SETTINGS, openOutboxPublisher, type PublishIntegrationEvent } from '@immo/service-kit';
import {
  ADVERT_FACTS_COLLECTION,
  ADVERTS_COLLECTION,
  CHECKPOINTS_COLLECTION,
  PROPERTIES_COLLECTION,
  SEARCH_ROWS_COLLECTION,
  type AdvertRecord,
  type PropertyRecord,
} from './read-models';


const NOW = () => new Date('2027-01-01T00:00:00Z');

async function documentsOf(store: DocumentStore): Promise<PropertyRecord['document'][]> {
  const records = await store.collection<PropertyRecord>(PROPERTIES_COLLECTION).find({}, { sort: { _id: 1 } });
  return records.map((record) => record.document);
}

describe('listings projections (real JetStream, LMDB read models)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  let publish: PublishIntegrationEvent;
  const dirs: string[] = [];
  const openStore = (): { store: EmbeddedDocumentStore; dir: string } => {
    const dir = mkdtempSync(join(tmpdir(), 'listings-projections-'));
    dirs.push(dir);
    return { store: new EmbeddedDocumentStore({ dataDir: dir }), dir };
  };

  /** Appends a marker and waits until the projections have committed everything before it. */
  async function caughtUp(projections: ListingsProjections): Promise<void> {
    const marker = await eventStore.append(`marker-${randomUUID()}`, [{ id: randomUUID(), type: 'Marker', data: {} }], { expectedRevision: 'no_stream' });
    await projections.runner.waitFor(marker.position);
  }

  /** Drops the read models, replays the log into them, and expects these documents. */
  async function expectRebuildToGive(projections: ListingsProjections, store: DocumentStore, documents: PropertyRecord['document'][]): Promise<void> {
    const log = jest.spyOn(Logger.prototype, 'log');
    await projections.runner.rebuild('rebuild-0001');
    // The line saying what the request did names it (listings passes request ids explicitly).
    expect(log).toHaveBeenCalledWith({ msg: 'read models dropped; replaying the event log', requestId: 'rebuild-0001' });
    log.mockRestore();
    await caughtUp(projections);
    expect(await documentsOf(store)).toEqual(documents);
  }

  /** The integration events the log implies, derived by a fresh run that only records them. */
  async function expectedEvents(): Promise<Map<string, ListingsIntegrationEvent>> {
    const recorded = new Map<string, ListingsIntegrationEvent>();
    const store = new EmbeddedDocumentStore();
    const projections = createListingsProjections({ eventStore, store, geo, publish: async (_subject, eventId, payload) => void recorded.set(eventId, JSON.parse(payload) as ListingsIntegrationEvent) });
    await projections.runner.start();
    projections.relay.start();
    await caughtUp(projections);
    expect(await projections.relay.settled(10_000)).toBe(true);
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
    return recorded;
  }

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'LISTINGS_TEST', subjectPrefix: 'es.test' });
    publish = await openOutboxPublisher(nats, LISTINGS_INTEGRATION_STREAM_SETTINGS);
  });

  afterAll(async () => {
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('builds documents incrementally; replaying every event again changes nothing; a rebuild gives the same ids and documents', async () => {
    const { store } = openStore();
    const projections = createListingsProjections({ eventStore, store, geo, publish });
    await projections.runner.start();
    projections.relay.start();
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW });

    // Time-ordered snapshots: publications, price drops, surface corrections, expiries, several publishers per good.
    const { snapshots } = generateDataset({ seed: 7, goods: 120 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    await caughtUp(projections);
    const incremental = await documentsOf(store);
    expect(incremental.length).toBeGreaterThan(50);
    expect(incremental.some((doc) => doc.adverts.length > 1)).toBe(true);
    expect(incremental.some((doc) => doc.adverts.some((advert) => advert.events.some((e) => e.fieldName === 'price' && e.percentVariation < 0)))).toBe(true);

    // Given every checkpoint forgotten, when the log is applied a second time, then nothing changes.
    await projections.runner.stop();
    await store.collection(CHECKPOINTS_COLLECTION).clear();
    const again = createListingsProjections({ eventStore, store, geo, publish });
    await again.runner.start();
    await caughtUp(again);
    expect(await documentsOf(store)).toEqual(incremental);

    // Dropping the read models and rebuilding from the log gives the same ids and documents.
    await expectRebuildToGive(again, store, incremental);
    await again.runner.stop();
    await projections.relay.stop();
    await store.close();
  }, 90_000);

  it('writes only plain JSON data to the collections it declares plain JSON (the store keeps those as JSON text)', async () => {
    const { store } = openStore();
    const plainJson = new Set([ADVERTS_COLLECTION, ADVERT_FACTS_COLLECTION, PROPERTIES_COLLECTION, SEARCH_ROWS_COLLECTION].filter((spec) => spec.plainJson).map((spec) => spec.name));
    expect(plainJson.size).toBe(4);
    const written = new Map<string, StoredDocument[]>();
    const commit = store.commit.bind(store);
    jest.spyOn(store, 'commit').mockImplementation((writes) => {
      for (const write of writes) if ('upsert' in write && plainJson.has(write.collection)) written.set(write.collection, [...(written.get(write.collection) ?? []), write.upsert]);
      return commit(writes);
    });
    const projections = createListingsProjections({ eventStore, store, geo, publish });
    await projections.runner.start();
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 11, goods: 60 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    await caughtUp(projections);
    await projections.runner.stop();
    await store.close();

    expect([...written.keys()].sort()).toEqual([...plainJson].sort());
    // Strict: a Date, an undefined field or a NaN would read back otherwise than it was written.
    for (const docs of written.values()) for (const doc of docs) expect(JSON.parse(JSON.stringify(doc))).toStrictEqual(doc);
  }, 60_000);

  it('publishes every integration event once, through publish failures and 10 s without NATS', async () => {
    const { store } = openStore();
    let failuresLeft = 5;
    let hold: Promise<void> | null = null;
    let release = (): void => undefined;
    const flaky: PublishIntegrationEvent = async (subject, eventId, payload) => {
      if (hold) await hold;
      if (failuresLeft > 0) {
        failuresLeft--;
        throw new Error('simulated publish failure');
      }
      return publish(subject, eventId, payload);
    };
    const projections = createListingsProjections({ eventStore, store, geo, publish: flaky });
    await projections.runner.start();
    projections.relay.start();
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 99, goods: 25 });
    const half = Math.floor(snapshots.length / 2);
    expect((await ingestion.ingest(snapshots.slice(0, half))).rejected).toBe(0);
    await caughtUp(projections);
    expect(projections.relay.failedAttempts).toBeGreaterThan(0);

    expect(await projections.relay.settled(10_000)).toBe(true);

    // The second half is committed while the relay is held, then NATS goes away for 10 s.
    hold = new Promise<void>((resolve) => (release = resolve));
    expect((await ingestion.ingest(snapshots.slice(half))).rejected).toBe(0);
    await caughtUp(projections);
    const waiting = await projections.relay.pending();
    expect(waiting).toBeGreaterThan(0);
    await server.interrupt();
    hold = null;
    release();
    await new Promise((r) => setTimeout(r, 10_000));
    expect(await projections.relay.pending()).toBe(waiting);
    await server.start();
    expect(await projections.relay.settled(30_000)).toBe(true);

    const published = await publishedEvents({ servers: server.url });
    const ids = published.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = await expectedEvents();
    expect(new Set(ids)).toEqual(new Set(expected.keys()));
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
  }, 120_000);

  it('a rebuild announces nothing again: the outbox keeps its checkpoint', async () => {
    const jsm = await nats.jetstreamManager();
    const { store } = openStore();
    const projections = createListingsProjections({ eventStore, store, geo, publish });
    await projections.runner.start();
    projections.relay.start();
    await caughtUp(projections);
    expect(await projections.relay.settled(30_000)).toBe(true);
    const before = (await jsm.streams.info(LISTINGS_INTEGRATION_STREAM)).state.messages;
    const published = projections.relay.publishedCount;

    await projections.runner.rebuild();
    await caughtUp(projections);
    expect(await projections.relay.settled(10_000)).toBe(true);
    expect(projections.relay.publishedCount).toBe(published);
    expect((await jsm.streams.info(LISTINGS_INTEGRATION_STREAM)).state.messages).toBe(before);
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
  }, 90_000);

  it('a stop snapshots the search index; the next start restores it only when taken at the stored checkpoint, and loads the rows otherwise', async () => {
    const { store, dir } = openStore();
    const snapshotFile = join(dir, 'search-index.snapshot');
    const open = () => createListingsProjections({ eventStore, store, geo, publish, searchIndexSnapshotFile: snapshotFile });
    const queries = ['', 'transactionType=0&order[price]=asc&itemsPerPage=30', 'propertyTypes[]=1&surfaceMin=60', 'expressions[0][0][word]=maison&page=2'].map((query) =>
      criteriaOf(Object.fromEntries(new URLSearchParams(query))),
    );
    const answers = (projections: ListingsProjections) => queries.map((criteria) => projections.searchIndex.search(criteria));
    const stop = async (projections: ListingsProjections, snapshot: boolean) => {
      await projections.runner.stop();
      if (snapshot) await projections.runner.saveSnapshot();
      await projections.relay.stop();
    };

    const first = open();
    await first.runner.start();
    const ingestion = new IngestionService(eventStore, geo, first.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 31, goods: 80 });
    expect((await ingestion.ingest(snapshots.slice(0, 400))).rejected).toBe(0);
    await caughtUp(first);
    const before = answers(first);
    expect(before[0]?.total).toBeGreaterThan(30);
    await stop(first, true);
    expect(existsSync(snapshotFile)).toBe(true);

    // Restored from the snapshot (and the file consumed), answering as before.
    const second = open();
    await second.runner.start();
    expect(second.runner.searchIndexSource).toBe('the snapshot taken at stop');
    expect(existsSync(snapshotFile)).toBe(false);
    expect(answers(second)).toEqual(before);

    // A snapshot older than the stored checkpoint (a crash after more commits) is not used.
    await stop(second, true);
    const stale = readFileSync(snapshotFile);
    const third = open();
    await third.runner.start();
    const more = new IngestionService(eventStore, geo, third.directory.matcher, { now: NOW });
    expect((await more.ingest(snapshots.slice(400))).rejected).toBe(0);
    await caughtUp(third);
    const after = answers(third);
    expect(after).not.toEqual(before);
    await stop(third, false);
    writeFileSync(snapshotFile, stale);
    const fourth = open();
    await fourth.runner.start();
    expect(fourth.runner.searchIndexSource).toBe('the stored rows');
    expect(answers(fourth)).toEqual(after);
    await stop(fourth, false);
    await store.close();
  }, 90_000);
  it('answers ingestion with the records the projections applied before they are committed, and ingestion deciding on them appends what a rebuild agrees with', async () => {
    const { store } = openStore();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    // The store as the projections see it: their commits wait while held.
    const slow = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'commit') {
          return async (writes: Parameters<DocumentStore['commit']>[0]) => {
            if (holding) await held;
            return target.commit(writes);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const projections = createListingsProjections({ eventStore, store: slow, geo, publish: async () => undefined });
    await projections.runner.start();
    await caughtUp(projections);
    holding = true;
    const lookups: (AdvertRecord | null)[] = [];
    const projected: ProjectedAdvertLookup = async (advertId) => {
      const record = await projections.runner.advertRecord(advertId);
      lookups.push(record);
      return record ? { state: record.state, revision: record.revision } : null;
    };
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW, projected });
    const { snapshots } = generateDataset({ seed: 41, goods: 40 });
    const reply = await ingestion.ingest(snapshots.slice(0, 60));
    expect(reply.rejected).toBe(0);

    // Commits held: the first advert is applied, not stored, and the projections answer it anyway.
    const firstAdvert = reply.results[0]?.advertId as string;
    let applied: AdvertRecord | null = null;
    for (const deadline = Date.now() + 10_000; applied === null && Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
      applied = await projections.runner.advertRecord(firstAdvert);
    }
    expect(applied?.state.uuid).toBe(firstAdvert);
    expect(await store.collection<AdvertRecord>(ADVERTS_COLLECTION).findById(firstAdvert)).toBeNull();

    holding = false;
    release();
    await caughtUp(projections);
    // A second ingestion, with nothing of its own remembered, decides every snapshot on the projections' records.
    const later = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW, projected });
    const reads = jest.spyOn(eventStore, 'readStream');
    lookups.length = 0;
    expect((await later.ingest(snapshots.slice(60))).rejected).toBe(0);
    // Every guess was right: no append was refused and decided again on the stream.
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    expect(lookups.filter((record) => record !== null).length).toBeGreaterThan(5);
    await caughtUp(projections);
    await expectRebuildToGive(projections, store, await documentsOf(store));
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
  }, 90_000);

  it('applies the next batch while one commits, and commits the batches one after another, in order', async () => {
    // Several batches' worth of events in the log, whatever ran before.
    const ingestion = new IngestionService(eventStore, geo, new PropertyMatcher(), { now: NOW });
    const { snapshots } = generateDataset({ seed: 8, goods: 80 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    const { store } = openStore();
    let lookups = 0;
    const countingGeo: GeoLookup = { ...geo, cityByInsee: (insee) => (lookups++, geo.cityByInsee(insee)) };
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const commits: { lookupsAtStart: number; checkpoints: number[] }[] = [];
    let committing = 0;
    let overlapped = false;
    // The store as the projections see it: their first commit waits until released; their commits are recorded.
    const slow = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'commit') {
          return async (writes: Parameters<DocumentStore['commit']>[0]) => {
            const checkpoints = writes.flatMap((write) => ('upsert' in write && write.collection === CHECKPOINTS_COLLECTION.name ? [write.upsert.revision] : []));
            // The projections' commits carry their checkpoints (the outbox relay's own do not).
            if (checkpoints.length === 0) return target.commit(writes);
            if (++committing > 1) overlapped = true;
            commits.push({ lookupsAtStart: lookups, checkpoints });
            try {
              if (commits.length === 1) await held;
              return await target.commit(writes);
            } finally {
              committing--;
            }
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const projections = createListingsProjections({ eventStore, store: slow, geo: countingGeo, publish });
    await projections.runner.start();
    await until(() => commits.length === 1, 10_000);
    // The first batch is committing: the next one is applied meanwhile, and not committed before it.
    await until(() => lookups > (commits[0]?.lookupsAtStart ?? 0), 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(commits).toHaveLength(1);
    release();
    await caughtUp(projections);
    await projections.runner.stop();
    await projections.relay.stop();
    expect(overlapped).toBe(false);
    const positions = commits.map((commit) => Math.max(...commit.checkpoints));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);

    // The same log projected without waits gives the same documents.
    const reference = new EmbeddedDocumentStore();
    const plain = createListingsProjections({ eventStore, store: reference, geo, publish: async () => undefined });
    await plain.runner.start();
    await caughtUp(plain);
    await plain.runner.stop();
    await plain.relay.stop();
    expect(await documentsOf(store)).toEqual(await documentsOf(reference));
    await reference.close();
    await store.close();
  }, 90_000);

  it('keeps its batches growing while a store slower than the batching delay commits: the events never go one per commit', async () => {
    // A log of its own, so that only these events are counted.
    const log = await JetStreamEventStore.connect({ servers: nats, streamName: 'LISTINGS_SLOW_STORE', subjectPrefix: 'es.slow' });
    const ingestion = new IngestionService(log, geo, new PropertyMatcher(), { now: NOW });
    const { snapshots } = generateDataset({ seed: 12, goods: 10 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    const head = (await log.headPosition())!;
    // Each new snapshot appended one event at least.
    const events = snapshots.length;

    const store = new EmbeddedDocumentStore();
    const COMMIT_MS = 120;
    let commits = 0;
    // The projections' commits (they carry checkpoints) each take longer than a batch waits for more events.
    const slow = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'commit') {
          return async (writes: Parameters<DocumentStore['commit']>[0]) => {
            if (writes.some((write) => 'upsert' in write && write.collection === CHECKPOINTS_COLLECTION.name)) {
              commits++;
              await new Promise((r) => setTimeout(r, COMMIT_MS));
            }
            return target.commit(writes);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    // Geo answers over the network: an event's projection awaits, and a timer may fire meanwhile.
    const remoteGeo: GeoLookup = {
      ...geo,
      cityByInsee: async (insee) => (await new Promise((r) => setTimeout(r, 3)), geo.cityByInsee(insee)),
      stationsNear: async (lat, lon) => (await new Promise((r) => setTimeout(r, 3)), geo.stationsNear(lat, lon)),
    };
    const projections = createListingsProjections({ eventStore: log, store: slow, geo: remoteGeo, publish: async () => undefined });
    await projections.runner.start();
    await projections.runner.waitFor(head);
    await projections.runner.stop();
    await projections.relay.stop();
    await store.close();
    await log.close();
    // One event per commit would be as many commits as events, and 120 ms each.
    expect(events).toBeGreaterThan(120);
    expect(commits).toBeLessThan(events / 5);
  }, 90_000);

  it('drops its read models and replays the log when they are ahead of it (the log lost its tail in a machine crash), so the appends that reuse those positions are projected and announced', async () => {
    const streamName = 'LISTINGS_LOST_TAIL';
    const connectLog = () => JetStreamEventStore.connect({ servers: nats, streamName, subjectPrefix: 'es.lost-tail' });
    const { store } = openStore();
    const announced = new Set<string>();
    const recording: PublishIntegrationEvent = async (_subject, eventId) => void announced.add(eventId);
    const settle = async (log: JetStreamEventStore, projections: ListingsProjections, published = true) => {
      const marker = await log.append(`marker-${randomUUID()}`, [{ id: randomUUID(), type: 'Marker', data: {} }], { expectedRevision: 'no_stream' });
      await projections.runner.waitFor(marker.position);
      if (published) expect(await projections.relay.settled(10_000)).toBe(true);
    };

    let log = await connectLog();
    const before = createListingsProjections({ eventStore: log, store, geo, publish: recording });
    await before.runner.start();
    before.relay.start();
    const { snapshots } = generateDataset({ seed: 5, goods: 30 });
    expect((await new IngestionService(log, geo, before.directory.matcher, { now: NOW }).ingest(snapshots)).rejected).toBe(0);
    await settle(log, before);
    await before.runner.stop();
    await before.relay.stop();
    const lost = await documentsOf(store);
    expect(lost.length).toBeGreaterThan(10);

    // The machine crashed before the broker's files held those events: the stream starts over.
    await (await nats.jetstreamManager()).streams.delete(streamName);
    await log.close();
    log = await connectLog();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const after = createListingsProjections({ eventStore: log, store, geo, publish: recording });
    await after.runner.start();
    after.relay.start();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('read models are ahead of the event log'));
    warn.mockRestore();
    announced.clear();
    const fresh = generateDataset({ seed: 6, goods: 3 }).snapshots;
    expect((await new IngestionService(log, geo, after.directory.matcher, { now: NOW }).ingest(fresh)).rejected).toBe(0);
    await settle(log, after);

    // What the log holds now, and nothing of what it lost.
    const documents = await documentsOf(store);
    const reference = openStore().store;
    const replay = createListingsProjections({ eventStore: log, store: reference, geo, publish: async () => undefined });
    await replay.runner.start();
    await settle(log, replay, false);
    expect(documents).toEqual(await documentsOf(reference));
    expect(documents.length).toBeGreaterThan(0);
    expect(documents.some((doc) => lost.some((old) => old.uuid === doc.uuid && JSON.stringify(old) === JSON.stringify(doc)))).toBe(false);
    expect(after.searchIndex.search(criteriaOf({ withCoherentPrice: 'false', itemsPerPage: '30' })).total).toBe(documents.length);
    expect([...announced].filter((id) => id.startsWith('property-created:') || id.endsWith(':property.ad.create')).length).toBeGreaterThan(0);
    await replay.runner.stop();
    await after.runner.stop();
    await after.relay.stop();
    await log.close();
    await reference.close();
    await store.close();
  }, 90_000);

  /** The log as a slower replica reads it: a 300 ms pause every 100 events. */
  const slowedLog = (): EventStore =>
    Object.assign(Object.create(eventStore) as EventStore, {
      subscribeToAll: (options?: SubscribeToAllOptions): AllSubscription => {
        const inner = eventStore.subscribeToAll(options);
        return {
          unsubscribe: () => inner.unsubscribe(),
          async *[Symbol.asyncIterator]() {
            let seen = 0;
            for await (const event of inner) {
              if (++seen % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 300));
              yield event;
            }
          },
        };
      },
    });

  /** The store as one replica uses it, counting the documents that replica's commits wrote. */
  const countingWrites = (store: DocumentStore): { store: DocumentStore; written: () => number } => {
    let written = 0;
    const counted = new Proxy(store, {
      get(target, property) {
        if (property !== 'commit') return Reflect.get(target, property, target) as unknown;
        return async (writes: readonly DocumentWrite[], options?: CommitOptions) => {
          const outcomes = await target.commit(writes, options);
          written += outcomes.filter((outcome) => outcome !== 'stale' && outcome !== 'absent').length;
          return outcomes;
        };
      },
    });
    return { store: counted, written: () => written };
  };

  it('keeps two replicas sharing one store equal in memory: the writer commits, the other (slower) follows what it stored (grouping directory and search index) and writes nothing', async () => {
    const store = new EmbeddedDocumentStore();
    const follower = countingWrites(store);
    const restartsNeeded: string[] = [];
    const fast = createListingsProjections({ eventStore, store, geo, publish: async () => undefined, isWriter: () => true });
    const slow = createListingsProjections({
      eventStore: slowedLog(),
      store: follower.store,
      geo,
      publish: async () => undefined,
      isWriter: () => false,
      onRestartNeeded: (reason) => restartsNeeded.push(reason),
    });
    await fast.runner.start();
    await slow.runner.start();
    const ingestion = new IngestionService(eventStore, geo, fast.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 23, goods: 150 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    await caughtUp(fast);
    await caughtUp(slow);

    const everything = criteriaOf({ withCoherentPrice: 'false', itemsPerPage: '30', order: { createdAt: 'asc' } });
    const properties = await store.collection(PROPERTIES_COLLECTION).count({});
    expect(properties).toBeGreaterThan(100);
    expect(fast.searchIndex.search(everything).total).toBe(properties);
    expect(slow.searchIndex.search(everything)).toEqual(fast.searchIndex.search(everything));
    expect(slow.directory.size).toBe(fast.directory.size);
    expect(slow.directory.size).toBe(await store.collection(ADVERT_FACTS_COLLECTION).count({}));
    expect(follower.written()).toBe(0);

    // The writer rebuilds the read models: the follower sees their checkpoint go back and asks for a restart.
    expect(restartsNeeded).toEqual([]);
    await fast.runner.rebuild();
    await caughtUp(fast);
    await until(() => restartsNeeded.length > 0, 10_000);
    expect(restartsNeeded[0]).toMatch(/the writer rebuilt the shared read models/);
    await slow.runner.stop();
    await fast.runner.stop();
    await store.close();
  }, 90_000);

  it('refuses the commit of a writer that lost its turn (another replica committed since it read the checkpoint): nothing of its batch is written, and it says it was deposed', async () => {
    const store = new EmbeddedDocumentStore();
    const deposed: string[] = [];
    const late = countingWrites(store);
    const current = createListingsProjections({ eventStore, store, geo, publish: async () => undefined, isWriter: () => true });
    const stalled = createListingsProjections({ eventStore: slowedLog(), store: late.store, geo, publish: async () => undefined, isWriter: () => true, onRestartNeeded: (reason) => deposed.push(reason) });
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await current.runner.start();
    await stalled.runner.start();
    const ingestion = new IngestionService(eventStore, geo, current.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 29, goods: 60 });
    expect((await ingestion.ingest(snapshots)).rejected).toBe(0);
    await caughtUp(current);
    await until(() => deposed.length > 0, 10_000);
    expect(deposed[0]).toMatch(/another replica wrote the shared read models meanwhile/);
    expect(late.written()).toBe(0);
    expect(stalled.runner.failed).toBeInstanceOf(CommitConflictError);
    error.mockRestore();
    await stalled.runner.stop();
    await current.runner.stop();
    await store.close();
  }, 60_000);
});
