import { Logger } from '@nestjs/common';
import { aCity, aPropertyDocument } from '@immo/property-criteria/testing';
import type { SearchDoc } from '../projection/read-models';
import type { SearchSpec } from '../searches/search-body';
import { alertingSearchOf, MatchableSearches } from './matchable-searches';

const ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const LYON_SEARCH = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const PARIS_SEARCH = 'a1b2c3d4-1111-4aaa-8bbb-000000000002';
const RENT_SEARCH = 'a1b2c3d4-1111-4aaa-8bbb-000000000003';

/** Criteria as a saved search stores them: the raw query the criteria library parses. */
const FLATS_FOR_SALE_IN_LYON = { transactionType: 0, propertyTypes: [0], includedCities: ['/cities/69123'] };
const FLATS_FOR_SALE_IN_PARIS = { transactionType: 0, propertyTypes: [0], includedCities: ['/cities/75056'] };
const FLATS_TO_RENT_IN_LYON = { transactionType: 1, propertyTypes: [0], includedCities: ['/cities/69123'] };

const lyonFlat = () => aPropertyDocument();
const parisFlat = () =>
  aPropertyDocument({
    city: aCity({ id: 75115, cityParentId: 75056, name: 'Paris 15e', insee: '75115', zipcode: '75015', department: { code: '75', id: 75, name: 'Paris' } }),
    locations: { lat: 48.8417, lon: 2.2986 },
  });

function aSearchDoc(id: string, revision: number, criteria: Record<string, unknown>, spec: Partial<SearchSpec> = {}, createdAt = '2026-03-01T09:00:00.000Z'): SearchDoc {
  const fullSpec: SearchSpec = {
    title: `Recherche ${id.slice(-1)}`,
    notificationEnabled: true,
    endpointRecipient: 'https://hooks.example.com/matches',
    eventEndpoint: null,
    subscribedEvents: [],
    notificationRecipient: null,
    hidePropertyContact: null,
    criteria: { ...criteria, withCoherentPrice: true },
    ...spec,
  };
  return {
    _id: id,
    revision,
    accountId: ACCOUNT_ID,
    state: {
      id,
      accountId: ACCOUNT_ID,
      spec: fullSpec,
      relations: { includedCities: [], excludedCities: [], includedDepartments: [] },
      token: `token-${id}`,
      platformOrigin: null,
      createdAt,
      updatedAt: createdAt,
      lastAlertAt: null,
      deleted: false,
      idempotency: null,
    },
    notificationEnabled: fullSpec.notificationEnabled,
    titleFolded: fullSpec.title.toLowerCase(),
    createdAt,
    tokenDigest: 'digest',
  };
}

const idsMatching = (searches: MatchableSearches, document = lyonFlat()) =>
  searches
    .matching(document)
    .map((search) => search.id)
    .sort();

describe('MatchableSearches', () => {
  let searches: MatchableSearches;
  let loggedErrors: jest.SpyInstance;

  beforeEach(() => {
    searches = new MatchableSearches();
    loggedErrors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  describe('matching', () => {
    beforeEach(() => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(PARIS_SEARCH, aSearchDoc(PARIS_SEARCH, 4, FLATS_FOR_SALE_IN_PARIS), 4);
      searches.apply(RENT_SEARCH, aSearchDoc(RENT_SEARCH, 5, FLATS_TO_RENT_IN_LYON), 5);
    });

    it('given three searches, when a flat for sale in Lyon 3e is matched, then only the Lyon sale search is found', () => {
      expect(searches.size).toBe(3);
      expect(idsMatching(searches, lyonFlat())).toEqual([LYON_SEARCH]);
    });

    it('given three searches, when a flat for sale in Paris 15e is matched, then only the Paris search is found', () => {
      expect(idsMatching(searches, parisFlat())).toEqual([PARIS_SEARCH]);
    });

    it('given three searches, when a flat to rent in Lyon is matched, then only the rent search is found', () => {
      expect(idsMatching(searches, aPropertyDocument({ transactionType: 1, price: 1200, pricePerMeter: 18.75 }))).toEqual([RENT_SEARCH]);
    });

    it('given three searches, when a house is matched, then none is found', () => {
      expect(idsMatching(searches, aPropertyDocument({ propertyType: 1 }))).toEqual([]);
    });

    it("given a search selecting by the original service's includedZipcodesInsee, when flats are matched, then only one in those communes is found", () => {
      const byInsee = 'a1b2c3d4-1111-4aaa-8bbb-000000000004';
      searches.apply(byInsee, aSearchDoc(byInsee, 6, { transactionType: 0, propertyTypes: [0] }, { includedZipcodesInsee: ['75056'] }), 6);
      expect(idsMatching(searches, parisFlat())).toEqual([PARIS_SEARCH, byInsee].sort());
      expect(idsMatching(searches, lyonFlat())).toEqual([LYON_SEARCH]);
    });

    it('given a matched search, when found, then it carries what the alert decisions need', () => {
      const doc = aSearchDoc(
        LYON_SEARCH,
        6,
        FLATS_FOR_SALE_IN_LYON,
        { eventEndpoint: 'https://hooks.example.com/events', subscribedEvents: ['ad.update.price'], hidePropertyContact: true, notificationEnabled: false },
        '2026-02-11T12:30:00.000Z',
      );
      searches.apply(LYON_SEARCH, doc, 6);

      expect(searches.matching(lyonFlat())).toEqual([
        {
          id: LYON_SEARCH,
          accountId: ACCOUNT_ID,
          createdAtMs: Date.parse('2026-02-11T12:30:00.000Z'),
          notificationEnabled: false,
          endpointRecipient: 'https://hooks.example.com/matches',
          eventEndpoint: 'https://hooks.example.com/events',
          subscribedEvents: ['ad.update.price'],
          hidePropertyContact: true,
          title: 'Recherche 1',
          notificationRecipient: null,
          unsubscribeToken: `token-${LYON_SEARCH}`,
        },
      ]);
    });
  });

  describe('alertingSearchOf', () => {
    it('given a search whose hidePropertyContact was never set, when read, then contacts are not hidden', () => {
      expect(alertingSearchOf(aSearchDoc(LYON_SEARCH, 1, FLATS_FOR_SALE_IN_LYON, { hidePropertyContact: null })).hidePropertyContact).toBe(false);
    });
  });

  describe('ordering of updates', () => {
    it('given a search, when a newer revision changes its criteria, then the new criteria are matched', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 7, FLATS_FOR_SALE_IN_PARIS), 7);

      expect(searches.size).toBe(1);
      expect(idsMatching(searches, lyonFlat())).toEqual([]);
      expect(idsMatching(searches, parisFlat())).toEqual([LYON_SEARCH]);
    });

    it('given a newer revision held, when an older revision arrives (a load racing a commit), then it does not replace it', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 7, FLATS_FOR_SALE_IN_PARIS), 7);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);

      expect(idsMatching(searches, parisFlat())).toEqual([LYON_SEARCH]);
      expect(idsMatching(searches, lyonFlat())).toEqual([]);
    });

    it('given a newer revision held, when an older one with other notification settings arrives, then the newer settings stay', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 7, FLATS_FOR_SALE_IN_LYON, { notificationEnabled: false }), 7);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON, { notificationEnabled: true }), 3);

      expect(searches.matching(lyonFlat()).map((search) => search.notificationEnabled)).toEqual([false]);
    });

    it('given a search, when the same revision is applied again, then it is matched once', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);

      expect(searches.size).toBe(1);
      expect(idsMatching(searches)).toEqual([LYON_SEARCH]);
    });
  });

  describe('deletions', () => {
    it('given a search, when it is deleted, then it is no longer matched', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, null, 9);

      expect(searches.size).toBe(0);
      expect(idsMatching(searches)).toEqual([]);
    });

    it.each([
      ['older than', 5],
      ['at', 9],
    ])('given a search deleted at position 9, when a copy read %s that position arrives, then it stays out', (_when, revision) => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, null, 9);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, revision, FLATS_FOR_SALE_IN_LYON), revision);

      expect(searches.size).toBe(0);
      expect(idsMatching(searches)).toEqual([]);
    });

    it('given a deletion seen before any copy of the search (a load racing a commit), when the older copy arrives, then it stays out', () => {
      searches.apply(LYON_SEARCH, null, 9);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 4, FLATS_FOR_SALE_IN_LYON), 4);

      expect(idsMatching(searches)).toEqual([]);
    });

    it('given a search deleted at position 9, when it is created again later, then the new copy is matched', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, null, 9);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 12, FLATS_FOR_SALE_IN_PARIS), 12);

      expect(searches.size).toBe(1);
      expect(idsMatching(searches, parisFlat())).toEqual([LYON_SEARCH]);
    });

    it('given two deletions, when the older one arrives last, then the later deletion position still keeps older copies out', () => {
      searches.apply(LYON_SEARCH, null, 9);
      searches.apply(LYON_SEARCH, null, 5);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 7, FLATS_FOR_SALE_IN_LYON), 7);

      expect(idsMatching(searches)).toEqual([]);
    });

    it('given a search re-created at revision 12, when a deletion older than it arrives, then the search stays', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 12, FLATS_FOR_SALE_IN_LYON), 12);
      searches.apply(LYON_SEARCH, null, 9);

      expect(idsMatching(searches)).toEqual([LYON_SEARCH]);
    });

    it('given one search deleted, when the others are matched, then they are still found', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(PARIS_SEARCH, aSearchDoc(PARIS_SEARCH, 4, FLATS_FOR_SALE_IN_PARIS), 4);
      searches.apply(LYON_SEARCH, null, 9);

      expect(searches.size).toBe(1);
      expect(idsMatching(searches, lyonFlat())).toEqual([]);
      expect(idsMatching(searches, parisFlat())).toEqual([PARIS_SEARCH]);
    });
  });

  describe('criteria the library rejects', () => {
    const REJECTED = { transactionType: 'viager', propertyTypes: [0] };

    it('given a new search, when its criteria are rejected, then it is not matched and an error is logged', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, REJECTED), 3);

      expect(searches.size).toBe(0);
      expect(loggedErrors).toHaveBeenCalledWith(expect.stringContaining(LYON_SEARCH));
    });

    it('given a matched search, when a newer revision brings rejected criteria, then it stops being matched', () => {
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 3, FLATS_FOR_SALE_IN_LYON), 3);
      searches.apply(LYON_SEARCH, aSearchDoc(LYON_SEARCH, 5, REJECTED), 5);

      expect(searches.size).toBe(0);
      expect(idsMatching(searches)).toEqual([]);
    });
  });
});
