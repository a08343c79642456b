import type { AdvertSnapshot, City, Station } from '@immo/contracts';
import { decide, evolve } from './advert';
import type { AdvertState } from './advert.events';
import { buildPropertyDocument, leadAdvertOf } from './property-document';
import { aSnapshot } from './snapshot.fixture';

const PROPERTY_ID = '0f5d5f2e-3d1c-5a7e-9c41-6c0f1b2a3d4e';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

const LYON: City = {
  id: 69123,
  cityParentId: null,
  name: 'Lyon',
  originalName: 'Lyon',
  insee: '69123',
  zipcode: '69001',
  open: true,
  hasGroupedByName: false,
  hasGroupedByZipcode: true,
  groupedCityNames: [],
  groupedCityZipcodes: ['69001', '69002', '69003'],
  country: { code: 'FR', id: 1, name: 'France' },
  department: { code: '69', id: 69, name: 'Rhône' },
  region: { code: '84', id: 84, name: 'Auvergne-Rhône-Alpes' },
  locations: { lat: 45.764, lon: 4.8357 },
};

const STATIONS: Station[] = [
  { id: 1, name: 'Part-Dieu', lines: [{ id: 2, name: 'Métro B', number: 'B', color: '#0094D8', routeName: 'Charpennes - Oullins' }] },
];

/** Folds a sequence of snapshots of one advert into its state. */
function advertFrom(...snapshots: AdvertSnapshot[]): AdvertState {
  let state: AdvertState | null = null;
  for (const s of snapshots) for (const e of decide(s, state)) state = evolve(state, e);
  if (state === null) throw new Error('no state');
  return state;
}

const agency = (overrides: Partial<AdvertSnapshot> = {}): AdvertSnapshot => aSnapshot(overrides);
const individual = (overrides: Partial<AdvertSnapshot> = {}): AdvertSnapshot =>
  aSnapshot({
    site: 'synthetic-classifieds-b',
    siteCategory: 'classifieds',
    reference: 'B-77',
    url: 'https://synthetic-classifieds-b.example/ad/77',
    publisher: { name: 'Particulier', category: 'individual', type: 0 },
    title: 'Vends T3 lumineux',
    price: 279_000,
    surface: 63.5,
    pictures: ['https://img.synthetic-classifieds-b.example/77/a.jpg', 'https://img.synthetic-portal-a.example/SPA-1/1.jpg'],
    location: null,
    seenAt: '2026-03-04T09:00:00Z',
    ...overrides,
  });

describe('an advert\'s location accuracy', () => {
  const located = (accuracy?: 1 | 2) => agency({ location: accuracy === undefined ? { lat: 45.76, lon: 4.85 } : { lat: 45.76, lon: 4.85, accuracy } });
  const advertOf = (state: AdvertState) => buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [state], city: LYON, stations: STATIONS }).adverts[0];

  it('is what the snapshot says, and null when it says nothing or has no location', () => {
    expect(advertOf(advertFrom(located(1)))?.geoAccuracy).toBe(1);
    expect(advertOf(advertFrom(located(2)))?.geoAccuracy).toBe(2);
    expect(advertOf(advertFrom(located()))?.geoAccuracy).toBeNull();
    expect(advertOf(advertFrom(individual()))?.geoAccuracy).toBeNull();
  });

  it('follows a recrawl that geocodes the same point more precisely (a location change)', () => {
    const first = located(2);
    const state = advertFrom(first);
    const events = decide({ ...located(1), seenAt: '2026-03-02T10:00:00Z' }, state);
    expect(events.length).toBeGreaterThan(0);
    let after: AdvertState | null = state;
    for (const event of events) after = evolve(after, event);
    expect(advertOf(after as AdvertState)?.geoAccuracy).toBe(1);
  });
});

describe('buildPropertyDocument', () => {
  describe('given an agency advert and a private advert of one flat', () => {
    // given: the agency advert was crawled last on the 5th (price drop), the private one on the 6th
    const agencyAdvert = advertFrom(agency(), agency({ price: 275_000, seenAt: '2026-03-05T08:00:00Z' }));
    const privateAdvert = advertFrom(individual(), individual({ seenAt: '2026-03-06T08:00:00Z' }));

    // when
    const doc = buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [agencyAdvert, privateAdvert], city: LYON, stations: STATIONS });

    it('then the JSON-LD identity follows the spec paths', () => {
      expect(doc).toMatchObject({
        '@context': '/contexts/PropertyDocument',
        '@id': `/documents/properties/${PROPERTY_ID}`,
        '@type': 'PropertyDocument',
        uuid: PROPERTY_ID,
        property: `/properties/${PROPERTY_ID}`,
      });
    });

    it('then the top-level fields come from the most recently crawled live advert', () => {
      expect(doc).toMatchObject({
        title: 'Vends T3 lumineux',
        price: 279_000,
        surface: 63.5,
        pricePerMeter: 4393.7,
        room: 3,
        propertyType: 0,
        transactionType: 0,
      });
    });

    it('then aggregates span all adverts', () => {
      expect(doc).toMatchObject({
        publisherTypes: [0, 1],
        expired: false,
        expiredAt: null,
        createdAt: '2026-03-01T10:00:00+00:00',
        updatedAt: '2026-03-05T08:00:00+00:00',
        lastCrawledAt: '2026-03-06T08:00:00+00:00',
        lastCrawledAdvert: privateAdvert.uuid,
      });
    });

    it('then locations fall back to the latest advert that has coordinates', () => {
      expect(doc.locations).toEqual({ lat: 45.7597, lon: 4.8553 });
    });

    it('then pictures are the de-duplicated union, lead advert first', () => {
      expect(doc.pictures).toEqual([
        'https://img.synthetic-classifieds-b.example/77/a.jpg',
        'https://img.synthetic-portal-a.example/SPA-1/1.jpg',
      ]);
    });

    it('then each advert is complete, with history, contact, publisher and ratings', () => {
      expect(doc.adverts.map((a) => a.uuid)).toEqual([agencyAdvert.uuid, privateAdvert.uuid]);
      expect(doc.adverts[0]).toMatchObject({
        url: 'https://synthetic-portal-a.example/annonces/SPA-1',
        price: 275_000,
        energy: { category: 'D', value: 212 },
        greenHouseGas: { category: 'E', value: 52 },
        publisher: { name: 'Agence Exemple (synthetic)', category: 'agency', type: 1 },
        contact: { agency: 'Agence Exemple (synthetic)', email: null, phone: '01 99 00 12 34' },
        picturesRemote: ['https://cdn.agence-exemple.example/1.jpg'],
        events: [
          {
            fieldName: 'price',
            fieldOldValue: '289000',
            fieldNewValue: '275000',
            percentVariation: -4.84,
            createdAt: '2026-03-05T08:00:00+00:00',
          },
        ],
        site: 'synthetic-portal-a',
        expired: false,
      });
    });

    it('then every timestamp carries a UTC offset', () => {
      const stamps = [doc.createdAt, doc.updatedAt, doc.lastCrawledAt, ...doc.adverts.flatMap((a) => [a.createdAt, a.updatedAt, a.lastCrawledAt])];
      for (const stamp of stamps) expect(stamp).toMatch(TIMESTAMP);
    });

    it('then city and stations are the injected ones', () => {
      expect(doc.city).toBe(LYON);
      expect(doc.stations).toEqual(STATIONS);
    });

    it('then the document does not depend on the order of the adverts', () => {
      const reversed = buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [privateAdvert, agencyAdvert], city: LYON, stations: STATIONS });
      expect(reversed).toEqual(doc);
    });
  });

  describe('given the most recently crawled advert is expired', () => {
    it('when building, then the live advert leads and the property is not expired', () => {
      const live = advertFrom(agency());
      const gone = advertFrom(individual(), individual({ expired: true, seenAt: '2026-03-10T00:00:00Z' }));

      const doc = buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [live, gone], city: null, stations: [] });

      expect(leadAdvertOf([gone, live])?.uuid).toBe(live.uuid);
      expect(doc).toMatchObject({ title: live.title, expired: false, expiredAt: null, lastCrawledAdvert: gone.uuid, city: null });
    });
  });

  describe('given all adverts expired', () => {
    it('when building, then the property is expired at the latest expiry and led by the last crawled advert', () => {
      const first = advertFrom(agency(), agency({ expired: true, seenAt: '2026-03-08T00:00:00Z' }));
      const second = advertFrom(individual(), individual({ expired: true, seenAt: '2026-03-12T00:00:00Z' }));

      const doc = buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [first, second], city: null, stations: [] });

      expect(doc).toMatchObject({ expired: true, expiredAt: '2026-03-12T00:00:00+00:00', title: second.title });
    });
  });

  describe('given an advert without surface nor hosted pictures', () => {
    it('when building, then pricePerMeter is null and publisher picture addresses are used', () => {
      const advert = advertFrom(agency({ surface: null, pictures: [] }));

      const doc = buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [advert], city: null, stations: [] });

      expect(doc.pricePerMeter).toBeNull();
      expect(doc.pictures).toEqual(['https://cdn.agence-exemple.example/1.jpg']);
    });
  });

  describe('given no advert', () => {
    it('when building, then it refuses', () => {
      expect(() => buildPropertyDocument({ propertyId: PROPERTY_ID, adverts: [], city: null, stations: [] })).toThrow(/no advert/);
    });
  });
});
