import type { City, PropertyDocument } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { generateDataset } from '../../demo/generate-snapshots';
import { ADVERT_EVENT_TYPES, decide, evolve, PropertyMatcher, replay, type AdvertState } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import type { GeoLookup } from '../geo/geo-directory.client';
import { simulatedAdvertLog } from './advert-log.fixture';
import { AdvertDirectory } from './advert-directory';
import { AdvertStatesProjection, type AdvertChange } from './advert-states.projection';
import { integrationEventOf } from './integration-outbox.projection';
import { membersBefore, PropertyDocumentsProjection } from './property-documents.projection';
import { CHECKPOINTS_COLLECTION, PROPERTIES_COLLECTION, type PropertyRecord } from './read-models';
import { searchRowOf } from '../search/search-row';
import { RecordCache, UnitOfWork } from './unit-of-work';

const NOW = new Date('2027-01-01T00:00:00Z');

const geo: GeoLookup = {
  async cityByInsee(insee: string): Promise<City | null> {
    return { id: 1, cityParentId: null, name: `Commune ${insee}`, originalName: `Commune ${insee}`, insee, zipcode: null, open: true, hasGroupedByName: false, hasGroupedByZipcode: false, groupedCityNames: [], groupedCityZipcodes: [], country: { code: 'FR', id: 1, name: 'France' }, department: { code: insee.slice(0, 2), id: 1, name: 'D' }, region: { code: '11', id: 11, name: 'R' }, locations: { lat: 45, lon: 4 } };
  },
  async inseeOf() {
    return null;
  },
  async stationsNear() {
    return [];
  },
};

function published(uuidSeed: string): AdvertState {
  const state = replay(decide(aSnapshot({ reference: uuidSeed }), null));
  if (state === null) throw new Error('publication produced no state');
  return state;
}

describe('membersBefore', () => {
  const a = evolve(published('A'), { type: ADVERT_EVENT_TYPES.assignedToProperty, data: { advertId: published('A').uuid, propertyId: 'p1', matchedAdvertId: null, at: published('A').lastCrawledAt } });
  const b = evolve(published('B'), { type: ADVERT_EVENT_TYPES.assignedToProperty, data: { advertId: published('B').uuid, propertyId: 'p1', matchedAdvertId: a.uuid, at: published('B').lastCrawledAt } });

  it('given a member that changed, when asked, then it stands as it was beside the others', () => {
    const repriced = { ...a, price: a.price - 1000, version: a.version + 1 };
    const change = { advertId: a.uuid, previous: a, next: repriced };
    expect(membersBefore([repriced, b], change)).toEqual([b, a]);
  });

  it('given an advert that just joined the property, when asked, then it is left out', () => {
    const unassigned = published('B');
    expect(membersBefore([a, b], { advertId: b.uuid, previous: unassigned, next: b })).toEqual([a]);
  });

  it('given the advert that founded the property, when asked, then nothing was there before', () => {
    expect(membersBefore([a], { advertId: a.uuid, previous: published('A'), next: a })).toEqual([]);
  });
});

describe('PropertyDocumentsProjection', () => {
  it('given a realistic log, when each change is applied, then the document before it is the one the change before left, and no document is read back', async () => {
    const { snapshots } = generateDataset({ seed: 21, goods: 150, multiPublisherShare: 0.5 });
    const log = simulatedAdvertLog(snapshots, NOW);
    const store = new EmbeddedDocumentStore();
    const properties = store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
    store.collection(CHECKPOINTS_COLLECTION);
    const documentReads = jest.spyOn(properties, 'findById');
    const advertStates = new AdvertStatesProjection(store, new AdvertDirectory(new PropertyMatcher()));
    const documents = new PropertyDocumentsProjection(store, advertStates, geo, () => false);
    const cache = new RecordCache(100);
    let uow = new UnitOfWork(store, cache);
    const lastDocument = new Map<string, PropertyDocument>();
    const seen = { changes: 0, withEarlierDocument: 0, severalAdverts: 0, recrawls: 0 };

    for (const [i, event] of log.entries()) {
      const change = (await advertStates.apply(event, uow)) as AdvertChange;
      const property = await documents.apply(change, uow);
      if (property !== null) {
        expect(property.before).toEqual(lastDocument.get(property.propertyId) ?? null);
        lastDocument.set(property.propertyId, property.after);
        seen.changes++;
        if (property.before !== null) seen.withEarlierDocument++;
        if (property.after.adverts.length > 1) seen.severalAdverts++;
        if (change.domainEvent.type === ADVERT_EVENT_TYPES.recrawled) seen.recrawls++;
      }
      uow.events++;
      // Batches of 40 events, committed one after another.
      if (i % 40 === 39) {
        await uow.commit(CHECKPOINTS_COLLECTION.name);
        uow = new UnitOfWork(store, cache);
      }
    }
    await uow.commit(CHECKPOINTS_COLLECTION.name);

    // The log exercised what makes "before" non-trivial.
    expect(seen.withEarlierDocument).toBeGreaterThan(100);
    expect(seen.severalAdverts).toBeGreaterThan(20);
    expect(seen.recrawls).toBeGreaterThan(20);
    expect(documentReads).not.toHaveBeenCalled();
    // What was stored is the last document of each property.
    for (const [propertyId, document] of lastDocument) expect((await properties.findById(propertyId))?.document).toEqual(document);
    await store.close();
  });

  it('given a realistic log, when a change is marked crawl-only, then its search row and announcement are exactly what deriving them again gives', async () => {
    const { snapshots } = generateDataset({ seed: 22, goods: 150, multiPublisherShare: 0.5 });
    const log = simulatedAdvertLog(snapshots, NOW);
    const store = new EmbeddedDocumentStore();
    store.collection(CHECKPOINTS_COLLECTION);
    const advertStates = new AdvertStatesProjection(store, new AdvertDirectory(new PropertyMatcher()));
    const documents = new PropertyDocumentsProjection(store, advertStates, geo, () => false);
    const uow = new UnitOfWork(store, new RecordCache(1000));
    const seen = { crawlOnly: 0, recrawlsThatMovedMore: 0 };

    for (const event of log) {
      const change = (await advertStates.apply(event, uow)) as AdvertChange;
      const property = await documents.apply(change, uow);
      uow.events++;
      if (property === null) continue;
      const derivedAgain = { ...property, crawlOnly: false };
      if (property.crawlOnly) {
        seen.crawlOnly++;
        expect(property.before).not.toBeNull();
        expect(searchRowOf(property.after)).toEqual(searchRowOf(property.before as PropertyDocument));
        expect(integrationEventOf(change, derivedAgain)).toBeNull();
        expect(property.after.lastCrawledAt).toBe(change.next.lastCrawledAt);
      } else if (change.domainEvent.type === ADVERT_EVENT_TYPES.recrawled && property.before !== null) {
        seen.recrawlsThatMovedMore++;
      }
    }

    // Both kinds of recrawl occurred: most move crawl times only, some move the lead advert.
    expect(seen.crawlOnly).toBeGreaterThan(100);
    expect(seen.recrawlsThatMovedMore).toBeGreaterThan(0);
    await store.close();
  });
});
