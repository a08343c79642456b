import type { AdvertSnapshot } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import {
  ADVERT_EVENT_TYPES,
  decide,
  decideExpiry,
  evolve,
  PropertyMatcher,
  propertyIdFor,
  replay,
  type AdvertState,
} from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import { AdvertDirectory, factsOf, sameFacts } from './advert-directory';
import { ADVERT_FACTS_COLLECTION, type AdvertFactsRecord } from './read-models';

const EXPIRY = '2026-04-01T00:00:00Z';

/** The state of a freshly published advert, grouped into the property it founds unless told otherwise. */
function anAdvert(overrides: Partial<AdvertSnapshot> = {}, grouped = true): AdvertState {
  const state = replay(decide(aSnapshot(overrides), null));
  if (state === null) throw new Error('publication produced no state');
  if (!grouped) return state;
  return evolve(state, {
    type: ADVERT_EVENT_TYPES.assignedToProperty,
    data: { advertId: state.uuid, propertyId: propertyIdFor(state.uuid), matchedAdvertId: null, at: state.createdAt },
  });
}

/** The same advert after another crawl. */
function recrawled(state: AdvertState, overrides: Partial<AdvertSnapshot>): AdvertState {
  return decide(aSnapshot(overrides), state).reduce<AdvertState>((s, e) => evolve(s, e), state);
}

const at = (iso: string) => new Date(iso);
const dueIds = (directory: AdvertDirectory, now: Date) => directory.dueForExpiry(now).map((f) => f.uuid).sort();

describe('AdvertDirectory', () => {
  let directory: AdvertDirectory;

  beforeEach(() => {
    directory = new AdvertDirectory(new PropertyMatcher());
  });

  describe('track', () => {
    it('given a grouped advert, when tracked, then the matcher knows its property', () => {
      const advert = anAdvert();

      directory.track(factsOf(advert));

      expect(directory.size).toBe(1);
      expect(directory.matcher.propertyOf(advert.uuid)).toBe(advert.propertyId);
    });

    it('given a grouped advert, when tracked, then a like advert from another site is matched to its property', () => {
      const advert = anAdvert();
      directory.track(factsOf(advert));
      const other = anAdvert({ site: 'synthetic-classifieds-b', reference: 'B-1', publisher: { name: 'Particulier', category: 'individual', type: 0 } }, false);

      const match = directory.matcher.match(factsOf(other));

      expect(match).toEqual({ propertyId: advert.propertyId, matchedAdvertId: advert.uuid });
    });

    it('given an advert not yet grouped, when tracked, then the matcher leaves it out', () => {
      directory.track(factsOf(anAdvert({}, false)));

      expect(directory.size).toBe(0);
    });

    it('given the same advert tracked twice, when counting, then it is there once', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });

      directory.track(factsOf(advert));
      directory.track(factsOf(recrawled(advert, { expiredAt: EXPIRY, price: 250_000, seenAt: '2026-03-02T10:00:00Z' })));

      expect(directory.size).toBe(1);
      expect(directory.dueForExpiry(at(EXPIRY))).toHaveLength(1);
      expect(directory.dueForExpiry(at(EXPIRY))[0]?.price).toBe(250_000);
    });
  });

  describe('dueForExpiry', () => {
    it('given a live advert with an announced expiry, when the time is just before it, then it is not due', () => {
      directory.track(factsOf(anAdvert({ expiredAt: EXPIRY })));

      expect(directory.dueForExpiry(at('2026-03-31T23:59:59.999Z'))).toEqual([]);
    });

    it('given a live advert with an announced expiry, when the time equals it, then it is due', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));

      expect(directory.dueForExpiry(at(EXPIRY))).toEqual([factsOf(advert)]);
    });

    it('given a live advert with an announced expiry, when the time is past it, then it is due', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));

      expect(dueIds(directory, at('2027-01-01T00:00:00Z'))).toEqual([advert.uuid]);
    });

    it('given an expiry announced with an offset, when the same instant comes in UTC, then it is due', () => {
      const advert = anAdvert({ expiredAt: '2026-04-01T02:00:00+02:00' });
      directory.track(factsOf(advert));

      expect(dueIds(directory, at('2026-03-31T23:59:59Z'))).toEqual([]);
      expect(dueIds(directory, at('2026-04-01T00:00:00Z'))).toEqual([advert.uuid]);
    });

    it('given a live advert without an announced expiry, when any time comes, then it is never due', () => {
      directory.track(factsOf(anAdvert()));

      expect(directory.dueForExpiry(at('2100-01-01T00:00:00Z'))).toEqual([]);
    });

    it('given an advert already expired (withdrawn) with an announced expiry, when the expiry passes, then it is not due', () => {
      const advert = anAdvert({ expiredAt: EXPIRY, expired: true });
      expect(advert.expired).toBe(true);

      directory.track(factsOf(advert));

      expect(directory.dueForExpiry(at('2027-01-01T00:00:00Z'))).toEqual([]);
      // Expired adverts still take part in grouping.
      expect(directory.size).toBe(1);
    });

    it('given a due advert, when it is tracked again once expired by the clock, then it leaves the schedule', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));
      const expired = decideExpiry(advert, at(EXPIRY)).reduce<AdvertState>((s, e) => evolve(s, e), advert);
      expect(expired.expired).toBe(true);

      directory.track(factsOf(expired));

      expect(directory.dueForExpiry(at('2027-01-01T00:00:00Z'))).toEqual([]);
      expect(directory.size).toBe(1);
    });

    it('given a scheduled advert, when its expiry date is withdrawn by a later crawl, then it leaves the schedule', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));

      directory.track(factsOf(recrawled(advert, { expiredAt: null, seenAt: '2026-03-02T10:00:00Z' })));

      expect(directory.dueForExpiry(at('2027-01-01T00:00:00Z'))).toEqual([]);
    });

    it('given a scheduled advert, when its expiry date is pushed back, then it is due at the new date only', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));

      directory.track(factsOf(recrawled(advert, { expiredAt: '2026-05-01T00:00:00Z', seenAt: '2026-03-02T10:00:00Z' })));

      expect(directory.dueForExpiry(at(EXPIRY))).toEqual([]);
      expect(dueIds(directory, at('2026-05-01T00:00:00Z'))).toEqual([advert.uuid]);
    });

    it('given several adverts, when asked, then only those whose date has passed are due', () => {
      const soon = anAdvert({ reference: 'SOON', expiredAt: '2026-03-10T00:00:00Z' });
      const later = anAdvert({ reference: 'LATER', expiredAt: '2026-06-01T00:00:00Z' });
      const never = anAdvert({ reference: 'NEVER' });
      for (const advert of [soon, later, never]) directory.track(factsOf(advert));

      expect(dueIds(directory, at('2026-04-01T00:00:00Z'))).toEqual([soon.uuid]);
      expect(dueIds(directory, at('2026-06-01T00:00:00Z'))).toEqual([soon.uuid, later.uuid].sort());
    });
  });

  describe('clear', () => {
    it('given tracked adverts, when cleared, then the matcher and the schedule are empty', () => {
      const advert = anAdvert({ expiredAt: EXPIRY });
      directory.track(factsOf(advert));

      directory.clear();

      expect(directory.size).toBe(0);
      expect(directory.matcher.propertyOf(advert.uuid)).toBeUndefined();
      expect(directory.dueForExpiry(at('2027-01-01T00:00:00Z'))).toEqual([]);
    });
  });

  describe('load', () => {
    it('given stored advert facts, when loaded, then every advert is tracked as if fed one by one', async () => {
      const store = new EmbeddedDocumentStore();
      const collection = store.collection<AdvertFactsRecord>(ADVERT_FACTS_COLLECTION);
      const scheduled = anAdvert({ reference: 'A', expiredAt: EXPIRY });
      const plain = anAdvert({ reference: 'B' });
      const ungrouped = anAdvert({ reference: 'C' }, false);
      await collection.bulkUpsert(
        [scheduled, plain, ungrouped].map((state, i) => ({ _id: state.uuid, revision: i + 1, facts: factsOf(state) })),
      );

      await directory.load(collection);

      expect(directory.size).toBe(2);
      expect(directory.matcher.propertyOf(plain.uuid)).toBe(plain.propertyId);
      expect(directory.matcher.propertyOf(ungrouped.uuid)).toBeUndefined();
      expect(dueIds(directory, at(EXPIRY))).toEqual([scheduled.uuid]);
      await store.close();
    });

    it('given an empty collection, when loaded, then the directory stays empty', async () => {
      const store = new EmbeddedDocumentStore();

      await directory.load(store.collection<AdvertFactsRecord>(ADVERT_FACTS_COLLECTION));

      expect(directory.size).toBe(0);
      expect(directory.dueForExpiry(at('2100-01-01T00:00:00Z'))).toEqual([]);
      await store.close();
    });
  });
});

describe('sameFacts', () => {
  it('given a plain recrawl, when its facts are compared, then they are the same (lastCrawledAt is left out)', () => {
    const first = anAdvert({ seenAt: '2026-02-01T00:00:00Z' });
    const again = recrawled(first, { seenAt: '2026-02-08T00:00:00Z' });
    expect(again.lastCrawledAt).not.toBe(first.lastCrawledAt);
    expect(sameFacts(factsOf(first), factsOf(again))).toBe(true);
  });

  it('given a price change, when the facts are compared, then they differ', () => {
    const first = anAdvert({ seenAt: '2026-02-01T00:00:00Z' });
    const cheaper = recrawled(first, { seenAt: '2026-02-08T00:00:00Z', price: first.price - 10_000 });
    expect(sameFacts(factsOf(first), factsOf(cheaper))).toBe(false);
  });

  it('given an expiry, when the facts are compared, then they differ', () => {
    const first = anAdvert({ seenAt: '2026-02-01T00:00:00Z' });
    const expired = recrawled(first, { seenAt: '2026-02-08T00:00:00Z', expired: true });
    expect(expired.expired).toBe(true);
    expect(sameFacts(factsOf(first), factsOf(expired))).toBe(false);
  });
});
