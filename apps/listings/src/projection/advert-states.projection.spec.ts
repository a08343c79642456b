import { EmbeddedDocumentStore, type DocumentCollection } from '@immo/document-store';
import type { RecordedEvent } from '@immo/event-store';
import { fromRecordedEvent, PropertyMatcher, replay } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import { simulatedAdvertLog } from './advert-log.fixture';
import { AdvertDirectory } from './advert-directory';
import { AdvertStatesProjection } from './advert-states.projection';
import { ADVERTS_COLLECTION, CHECKPOINTS_COLLECTION, type AdvertRecord } from './read-models';
import { RecordCache, UnitOfWork } from './unit-of-work';

const NOW = new Date('2027-01-01T00:00:00Z');

/** One advert published, assigned, then repriced twice: revisions 0 to 3. */
function advertLog(): RecordedEvent[] {
  const log = simulatedAdvertLog(
    [
      aSnapshot({ seenAt: '2026-03-01T10:00:00Z' }),
      aSnapshot({ seenAt: '2026-03-02T10:00:00Z', price: 279_000 }),
      aSnapshot({ seenAt: '2026-03-03T10:00:00Z', price: 269_000 }),
    ],
    NOW,
  );
  expect(log.map((event) => event.revision)).toEqual([0, 1, 2, 3]);
  return log;
}

describe('AdvertStatesProjection', () => {
  let store: EmbeddedDocumentStore;
  let projection: AdvertStatesProjection;
  let adverts: DocumentCollection<AdvertRecord>;

  beforeEach(() => {
    store = new EmbeddedDocumentStore();
    adverts = store.collection<AdvertRecord>(ADVERTS_COLLECTION);
    store.collection(CHECKPOINTS_COLLECTION);
    projection = new AdvertStatesProjection(store, new AdvertDirectory(new PropertyMatcher()));
  });

  afterEach(async () => {
    await store.close();
  });

  /** Applies events in one batch with its own (empty) cache, and commits it. */
  async function applyBatch(events: RecordedEvent[], cache = new RecordCache(100)): Promise<void> {
    const uow = new UnitOfWork(store, cache);
    for (const event of events) await projection.apply(event, uow);
    await uow.commit(CHECKPOINTS_COLLECTION.name);
  }

  const advertId = (log: RecordedEvent[]) => (log[0]?.data as { advertId: string }).advertId;

  it('given the record ingestion just read, when the advert\'s next event is applied, then it is folded onto that record without reading the store again', async () => {
    const log = advertLog();
    await applyBatch(log.slice(0, 2));
    expect((await projection.storedRecord(advertId(log)))?.revision).toBe(1);
    const reads = jest.spyOn(adverts, 'findById');
    await applyBatch(log.slice(2, 3));
    expect(reads).not.toHaveBeenCalled();
    expect((await adverts.findById(advertId(log)))?.state).toEqual(replay(log.slice(0, 3).map(fromRecordedEvent)));
  });

  it('given a record ingestion read before a later change committed, when the event after that change is applied, then the stored state is folded, not the one read', async () => {
    const log = advertLog();
    await applyBatch(log.slice(0, 2));
    // Ingestion reads revision 1; the projection then applies and commits revision 2 from its
    // cache, and forgets it (a later batch starts with an empty cache).
    const cache = new RecordCache(100);
    const uow = new UnitOfWork(store, cache);
    const known = await adverts.findById(advertId(log));
    if (known) cache.set(ADVERTS_COLLECTION.name, known);
    expect((await projection.storedRecord(advertId(log)))?.revision).toBe(1);
    await projection.apply(log[2] as RecordedEvent, uow);
    await uow.commit(CHECKPOINTS_COLLECTION.name);

    await applyBatch(log.slice(3));
    const stored = await adverts.findById(advertId(log));
    expect(stored?.revision).toBe(3);
    expect(stored?.state).toEqual(replay(log.map(fromRecordedEvent)));
  });

  it("given an advert's events applied, then its record keeps the revision and position of the last one, for ingestion to append at", async () => {
    const log = advertLog();
    await applyBatch(log.slice(0, 3));
    const stored = await projection.storedRecord(advertId(log));
    expect(stored).toMatchObject({ revision: 2, position: log[2]?.position });
    await applyBatch(log.slice(3));
    expect(await adverts.findById(advertId(log))).toMatchObject({ revision: 3, position: log[3]?.position });
  });

  it('given an advert never stored, when ingestion reads it, then it is not found and its first event is applied from nothing', async () => {
    const log = advertLog();
    expect(await projection.storedRecord(advertId(log))).toBeNull();
    await applyBatch(log);
    expect((await adverts.findById(advertId(log)))?.state).toEqual(replay(log.map(fromRecordedEvent)));
  });

  it('given the read models rebuilt, when an event is replayed, then nothing ingestion read before is used', async () => {
    const log = advertLog();
    await applyBatch(log.slice(0, 2));
    await projection.storedRecord(advertId(log));
    projection.clear();
    const reads = jest.spyOn(adverts, 'findById');
    await applyBatch(log.slice(2, 3));
    expect(reads).toHaveBeenCalledTimes(1);
  });
});
