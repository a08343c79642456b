import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { EmbeddedDocumentStore, type CommitOptions, type DocumentStore, type DocumentWrite } from '@immo/document-store';
import { JetStreamEventStore } from '@immo/event-store';
import type { PropertyDocument } from '@immo/contracts';
import { matches } from '@immo/property-criteria';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { generateDataset } from '../../demo/generate-snapshots';
import { geoStandIn as geo } from './geo-lookup.fixture';
import { IngestionService } from '../ingestion/ingestion.service';
import { criteriaOf } from '../search/property-document.fixture';
import { SEARCH_ROW_VERSION, searchRowOf } from '../search/search-row';
import { createListingsProjections, type ListingsProjections } from './create-projections';
import { CHECKPOINTS_COLLECTION, PROPERTIES_COLLECTION, SEARCH_ROWS_COLLECTION, type PropertyRecord, type SearchRowRecord } from './read-models';
import { SEARCH_ROW_VERSION_ID, storedSearchRowVersion, type SearchRowVersionRecord } from './search-row-version';


const NOW = () => new Date('2027-01-01T00:00:00Z');
/** Small batches, so that the upgrade of the rows takes several commits. */
const PAGE = 20;
const ADVERT_PRICE = { advertPriceMin: '150000', advertPriceMax: '400000', withCoherentPrice: 'false' };

describe('search rows stored by an older version (real JetStream, LMDB read models)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  let dataDir: string;
  let documents: PropertyDocument[];
  const publish = async (): Promise<void> => undefined;
  const open = (store: DocumentStore, isWriter?: () => boolean): ListingsProjections =>
    createListingsProjections({ eventStore, store, geo, publish, searchIndexLoadPage: PAGE, ...(isWriter ? { isWriter } : {}) });

  /** How many properties the reference predicate finds within the advert price bounds. */
  const expectedWithinPrice = (): number => documents.filter((doc) => matches(criteriaOf(ADVERT_PRICE), doc)).length;

  /** The rows as version 1 stored them: no live prices, and no mark of their version. */
  async function storeVersionOneRows(store: DocumentStore): Promise<void> {
    store.collection(CHECKPOINTS_COLLECTION);
    const rows = await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({});
    const writes: DocumentWrite[] = [{ collection: CHECKPOINTS_COLLECTION.name, deleteId: SEARCH_ROW_VERSION_ID }];
    for (const record of rows) {
      for (const advert of record.row.adverts) delete advert.livePrice;
      writes.push({ collection: SEARCH_ROWS_COLLECTION.name, deleteId: record._id }, { collection: SEARCH_ROWS_COLLECTION.name, upsert: record });
    }
    await store.commit(writes);
  }

  /** Every stored row is what the projection computes from the stored document today. */
  async function expectRowsCurrent(store: DocumentStore): Promise<void> {
    const rows = new Map((await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({})).map((record) => [record._id, record.row]));
    expect(rows.size).toBe(documents.length);
    for (const doc of documents) expect(rows.get(doc.uuid)).toEqual(searchRowOf(doc));
    expect((await storedSearchRowVersion(store)).version).toBe(SEARCH_ROW_VERSION);
  }

  /** The store as a replica uses it, calling `before` ahead of each commit (which may throw, as a dying process does). */
  const beforeEachCommit = (store: DocumentStore, before: () => void): DocumentStore =>
    new Proxy(store, {
      get(target, property) {
        if (property !== 'commit') return Reflect.get(target, property, target) as unknown;
        return async (writes: readonly DocumentWrite[], options?: CommitOptions) => {
          before();
          return target.commit(writes, options);
        };
      },
    });

  const withinPrice = (projections: ListingsProjections): number => projections.searchIndex.search(criteriaOf(ADVERT_PRICE)).total;

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'LISTINGS_ROWS_TEST', subjectPrefix: 'es.rows' });
    dataDir = mkdtempSync(join(tmpdir(), 'search-row-upgrade-'));

    const store = new EmbeddedDocumentStore({ dataDir });
    const projections = open(store);
    await projections.runner.start();
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed: 17, goods: 90 });
    for (let i = 0; i < snapshots.length; i += 100) expect((await ingestion.ingest(snapshots.slice(i, i + 100))).rejected).toBe(0);
    const head = await eventStore.headPosition();
    await projections.runner.waitFor(head ?? 0);
    await projections.runner.stop();
    documents = (await store.collection<PropertyRecord>(PROPERTIES_COLLECTION).find({})).map((record) => record.document);
    await store.close();
    expect(documents.length).toBeGreaterThan(3 * PAGE);
    // Some properties are within the bounds, some are not: the filter has something to tell apart.
    expect(expectedWithinPrice()).toBeGreaterThan(0);
    expect(expectedWithinPrice()).toBeLessThan(documents.length);
  }, 90_000);

  afterAll(async () => {
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on current rows without computing them again, from the rows', async () => {
    const store = new EmbeddedDocumentStore({ dataDir });
    await expectRowsCurrent(store);
    const projections = open(store);
    const scanned = jest.spyOn(store.collection(PROPERTIES_COLLECTION), 'scan');
    await projections.runner.start();
    expect(projections.runner.searchIndexSource).toBe('the stored rows');
    expect(scanned).not.toHaveBeenCalled();
    expect(withinPrice(projections)).toBe(expectedWithinPrice());
    await projections.runner.stop();
    await store.close();
  });

  it('computes rows of version 1 again from the documents at start, stores them with the mark of this version, and then finds properties by advert price', async () => {
    const old = new EmbeddedDocumentStore({ dataDir });
    await storeVersionOneRows(old);
    expect((await storedSearchRowVersion(old)).version).toBe(1);
    await old.close();

    const store = new EmbeddedDocumentStore({ dataDir });
    const projections = open(store);
    const log = jest.spyOn(Logger.prototype, 'log');
    await projections.runner.start();
    expect(log).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`^search rows of ${documents.length} properties upgraded from version 1 to ${SEARCH_ROW_VERSION} in \\d+ ms$`)));
    log.mockRestore();
    expect(projections.runner.searchIndexSource).toBe('the property documents, its search rows upgraded');
    expect(withinPrice(projections)).toBe(expectedWithinPrice());
    await projections.runner.stop();
    await expectRowsCurrent(store);
    await store.close();
  });

  it('redoes an upgrade that a crash interrupted after its first batch: never marked current before it is complete, complete after the restart', async () => {
    const old = new EmbeddedDocumentStore({ dataDir });
    await storeVersionOneRows(old);
    await old.close();

    // The process dies once the upgrade has committed its first batch of rows.
    const dying = new EmbeddedDocumentStore({ dataDir });
    let commits = 0;
    const failing = beforeEachCommit(dying, () => {
      if (++commits > 1) throw new Error('killed');
    });
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await expect(open(failing).runner.start()).rejects.toThrow('killed');
    error.mockRestore();
    const rows = await dying.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({});
    const upgraded = rows.filter((record) => record.row.adverts.every((advert) => advert.livePrice !== undefined)).length;
    expect(upgraded).toBe(PAGE);
    expect((await storedSearchRowVersion(dying)).version).toBe(1);
    await dying.close();

    const store = new EmbeddedDocumentStore({ dataDir });
    const restarted = open(store);
    await restarted.runner.start();
    expect(restarted.runner.searchIndexSource).toBe('the property documents, its search rows upgraded');
    expect(withinPrice(restarted)).toBe(expectedWithinPrice());
    await restarted.runner.stop();
    await expectRowsCurrent(store);
    await store.close();
  });

  /** Ingests more adverts through these projections' grouping and waits until they are committed. */
  async function ingestMore(projections: ListingsProjections, seed: number): Promise<void> {
    const ingestion = new IngestionService(eventStore, geo, projections.directory.matcher, { now: NOW });
    const { snapshots } = generateDataset({ seed, goods: 15 });
    expect((await ingestion.ingest(snapshots)).rejected).toBe(0);
    await projections.runner.waitFor((await eventStore.headPosition()) ?? 0);
  }

  const storedDocuments = async (store: DocumentStore): Promise<PropertyDocument[]> =>
    (await store.collection<PropertyRecord>(PROPERTIES_COLLECTION).find({})).map((record) => record.document);

  it('notices rows that a version without the mark wrote after this one (a rollback), and computes them again', async () => {
    const store = new EmbeddedDocumentStore({ dataDir });
    await expectRowsCurrent(store);
    const before = await store.collection<SearchRowVersionRecord>(CHECKPOINTS_COLLECTION).findById(SEARCH_ROW_VERSION_ID);
    const rollback = open(store);
    await rollback.runner.start();
    await ingestMore(rollback, 53);
    await rollback.runner.stop();
    // As version 1 would have left them: the mark where this version left it, the rows changed since without live prices.
    const rows = await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({ revision: { $gt: before?.revision } });
    expect(rows.length).toBeGreaterThan(0);
    const writes: DocumentWrite[] = [{ collection: CHECKPOINTS_COLLECTION.name, deleteId: SEARCH_ROW_VERSION_ID }, { collection: CHECKPOINTS_COLLECTION.name, upsert: before as SearchRowVersionRecord }];
    for (const record of rows) {
      for (const advert of record.row.adverts) delete advert.livePrice;
      writes.push({ collection: SEARCH_ROWS_COLLECTION.name, deleteId: record._id }, { collection: SEARCH_ROWS_COLLECTION.name, upsert: record });
    }
    await store.commit(writes);
    expect((await storedSearchRowVersion(store)).version).toBe(1);

    const forward = open(store);
    await forward.runner.start();
    expect(forward.runner.searchIndexSource).toBe('the property documents, its search rows upgraded');
    documents = await storedDocuments(store);
    expect(withinPrice(forward)).toBe(expectedWithinPrice());
    await forward.runner.stop();
    await expectRowsCurrent(store);
    await store.close();
  });

  it('a follower of a shared store computes rows of version 1 from the documents and stores nothing; once it becomes the writer, it upgrades them before it writes', async () => {
    const store = new EmbeddedDocumentStore({ dataDir });
    await storeVersionOneRows(store);
    let commits = 0;
    const counted = beforeEachCommit(store, () => commits++);
    let writing = false;
    const replica = open(counted, () => writing);
    await replica.runner.start();
    expect(replica.runner.searchIndexSource).toBe('the property documents, the stored search rows being of another version');
    expect(withinPrice(replica)).toBe(expectedWithinPrice());
    expect(commits).toBe(0);
    expect((await storedSearchRowVersion(store)).version).toBe(1);

    // It takes the lead: the rows are upgraded before the first change it writes.
    writing = true;
    const log = jest.spyOn(Logger.prototype, 'log');
    await ingestMore(replica, 51);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/^search rows of \d+ properties upgraded from version 1 to /));
    log.mockRestore();
    documents = await storedDocuments(store);
    await expectRowsCurrent(store);
    expect(withinPrice(replica)).toBe(expectedWithinPrice());
    await replica.runner.stop();
    await store.close();
  });

  it('a follower of a shared store that takes the lead upgrades the rows at once, with no change to apply', async () => {
    const store = new EmbeddedDocumentStore({ dataDir });
    await storeVersionOneRows(store);
    let writing = false;
    const replica = open(store, () => writing);
    await replica.runner.start();
    expect((await storedSearchRowVersion(store)).version).toBe(1);
    writing = true;
    const log = jest.spyOn(Logger.prototype, 'log');
    replica.runner.tookWritersTurn();
    await until(() => log.mock.calls.some(([message]) => typeof message === 'string' && message.startsWith('search rows of ')), 30_000);
    log.mockRestore();
    await expectRowsCurrent(store);
    expect(withinPrice(replica)).toBe(expectedWithinPrice());
    await replica.runner.stop();
    await store.close();
  });

  it('a follower that started on rows of version 1 answers as the writer that upgraded them, through later changes', async () => {
    const store = new EmbeddedDocumentStore({ dataDir });
    await storeVersionOneRows(store);
    const follower = open(store, () => false);
    await follower.runner.start();
    const writer = open(store, () => true);
    await writer.runner.start();
    expect(writer.runner.searchIndexSource).toBe('the property documents, its search rows upgraded');
    await ingestMore(writer, 52);
    await follower.runner.waitFor((await eventStore.headPosition()) ?? 0);
    documents = await storedDocuments(store);
    await expectRowsCurrent(store);
    const everything = criteriaOf({ withCoherentPrice: 'false', itemsPerPage: '30', order: { createdAt: 'asc' } });
    expect(follower.searchIndex.search(everything).total).toBe(documents.length);
    expect(withinPrice(follower)).toBe(expectedWithinPrice());
    expect(follower.searchIndex.search(criteriaOf(ADVERT_PRICE))).toEqual(writer.searchIndex.search(criteriaOf(ADVERT_PRICE)));
    await writer.runner.stop();
    await follower.runner.stop();
    await store.close();
  });
});
