import type { Advert, PropertyDocument } from '@immo/contracts';
import { matches } from './matches';
import { aCity, anAdvert, anEvent, aPropertyDocument, criteriaOf } from './property-document.fixture';

interface Case {
  criterion: string;
  query: Record<string, unknown>;
  matching: PropertyDocument;
  notMatching: PropertyDocument;
}

const doc = aPropertyDocument;
const withAdvert = (overrides: Partial<Advert>): PropertyDocument => doc({ adverts: [anAdvert(overrides)] });
const withAccuracy = (accuracy: number): PropertyDocument => doc({ adverts: [{ ...anAdvert(), geoAccuracy: accuracy } as Advert] });

const propertyLevelCases: Case[] = [
  { criterion: 'transactionType', query: { transactionType: '1' }, matching: doc({ transactionType: 1, price: 1200, pricePerMeter: 18.75 }), notMatching: doc() },
  { criterion: 'propertyTypes', query: { propertyTypes: ['1', '0'] }, matching: doc(), notMatching: doc({ propertyType: 4 }) },
  {
    criterion: 'publisherTypes (any advert)',
    query: { publisherTypes: '0' },
    matching: doc({ adverts: [anAdvert(), anAdvert({ publisher: { category: 'private', name: 'M. X', type: 0 } })] }),
    notMatching: doc(),
  },
  { criterion: 'budgetMin/Max (inclusive)', query: { budgetMin: '200000', budgetMax: '289000' }, matching: doc(), notMatching: doc({ price: 289_001 }) },
  { criterion: 'pricePerMeterMin/Max', query: { pricePerMeterMin: '4000', pricePerMeterMax: '5000' }, matching: doc(), notMatching: doc({ pricePerMeter: 5200 }) },
  { criterion: 'pricePerMeter missing', query: { pricePerMeterMax: '5000' }, matching: doc(), notMatching: doc({ pricePerMeter: null }) },
  { criterion: 'surfaceMin/Max', query: { surfaceMin: '64', surfaceMax: '80' }, matching: doc(), notMatching: doc({ surface: 63.5 }) },
  { criterion: 'landSurfaceMin (missing value)', query: { landSurfaceMin: '200' }, matching: doc({ landSurface: 500 }), notMatching: doc({ landSurface: null }) },
  { criterion: 'roomMin/Max', query: { roomMin: '3', roomMax: '3' }, matching: doc(), notMatching: doc({ room: 4 }) },
  { criterion: 'bedroomMin/Max', query: { bedroomMin: '2' }, matching: doc(), notMatching: doc({ bedroom: 1 }) },
  { criterion: 'furnished=true', query: { furnished: 'true' }, matching: doc({ furnished: true }), notMatching: doc({ furnished: null }) },
  { criterion: 'furnished=false', query: { furnished: 'false' }, matching: doc(), notMatching: doc({ furnished: true }) },
  { criterion: 'expired=true', query: { expired: 'true' }, matching: doc({ expired: true }), notMatching: doc() },
  { criterion: 'expired=false', query: { expired: 'false' }, matching: doc(), notMatching: doc({ expired: true }) },
  {
    criterion: 'fromUpdatedAt/toUpdatedAt',
    query: { fromUpdatedAt: '2026-02-20', toUpdatedAt: '2026-02-20' },
    matching: doc(),
    notMatching: doc({ updatedAt: '2026-02-20T23:00:00+00:00' }),
  },
  { criterion: 'withLocation=true', query: { withLocation: 'true' }, matching: doc(), notMatching: doc({ locations: null }) },
  { criterion: 'withLocation=false', query: { withLocation: 'false' }, matching: doc({ locations: null }), notMatching: doc() },
  {
    criterion: 'fromDate/toDate on the property creation',
    query: { fromDate: '2026-02-01 11:00:00', toDate: '2026-02-01' },
    matching: doc(),
    notMatching: doc({ createdAt: '2026-01-31T22:59:59+00:00' }),
  },
  {
    criterion: 'fromDate on the latest advert creation with sortMode=advert',
    query: { sortMode: 'advert', fromDate: '2026-03-01' },
    matching: doc({ createdAt: '2026-01-01T10:00:00+00:00', adverts: [anAdvert(), anAdvert({ createdAt: '2026-03-05T10:00:00+00:00' })] }),
    notMatching: doc({ createdAt: '2026-03-05T10:00:00+00:00', adverts: [anAdvert({ createdAt: '2026-02-01T10:00:00+00:00' })] }),
  },
  {
    criterion: 'withCoherentPrice (default)',
    query: {},
    matching: doc({ pricePerMeter: null }),
    notMatching: doc({ pricePerMeter: 45 }),
  },
];

const advertLevelCases: Case[] = [
  { criterion: 'priceExcludingFees', query: { priceExcludingFeesMax: '275000' }, matching: doc(), notMatching: withAdvert({ priceExcludingFees: 280_000 }) },
  { criterion: 'floorQuantity', query: { floorQuantityMin: '6' }, matching: doc(), notMatching: withAdvert({ floorQuantity: 2 }) },
  { criterion: 'lotCount', query: { lotCountMax: '30' }, matching: doc(), notMatching: withAdvert({ lotCount: null }) },
  { criterion: 'condominiumFees', query: { condominiumFeesMax: '2000' }, matching: doc(), notMatching: withAdvert({ condominiumFees: 2400 }) },
  { criterion: 'constructionYear', query: { constructionYearMin: '1960', constructionYearMax: '1970' }, matching: doc(), notMatching: withAdvert({ constructionYear: 1990 }) },
  { criterion: 'feesPercentage', query: { feesPercentageMax: '6' }, matching: doc(), notMatching: withAdvert({ feesPercentage: 7.5 }) },
  { criterion: 'feesResponsibility', query: { feesResponsibility: '1' }, matching: doc(), notMatching: withAdvert({ feesResponsibility: 0 }) },
  { criterion: 'rentalCharges', query: { rentalChargesMax: '100' }, matching: withAdvert({ rentalCharges: 100 }), notMatching: doc() },
  { criterion: 'rentalPledge', query: { rentalPledgeMin: '1000' }, matching: withAdvert({ rentalPledge: 1200 }), notMatching: withAdvert({ rentalPledge: 900 }) },
  { criterion: 'renterFees', query: { renterFeesMax: '500' }, matching: withAdvert({ renterFees: 450 }), notMatching: withAdvert({ renterFees: 600 }) },
  { criterion: 'inventoryPrice', query: { inventoryPriceMax: '200' }, matching: withAdvert({ inventoryPrice: 150 }), notMatching: withAdvert({ inventoryPrice: 250 }) },
  { criterion: 'energyCategories', query: { energyCategories: ['c', 'd'] }, matching: doc(), notMatching: withAdvert({ energy: { category: 'F', value: 380 } }) },
  { criterion: 'energyValue', query: { energyValueMax: '250' }, matching: doc(), notMatching: withAdvert({ energy: null }) },
  {
    criterion: 'greenHouseGasCategories',
    query: { greenHouseGasCategories: 'E' },
    matching: doc(),
    notMatching: withAdvert({ greenHouseGas: { category: 'B', value: 8 } }),
  },
  { criterion: 'greenHouseGasValue', query: { greenHouseGasValueMin: '50' }, matching: doc(), notMatching: withAdvert({ greenHouseGas: { category: 'B', value: 8 } }) },
  {
    criterion: 'withVirtualTour=true',
    query: { withVirtualTour: 'true' },
    matching: withAdvert({ virtualTour: 'https://tour.example/1' }),
    notMatching: doc(),
  },
  { criterion: 'withVirtualTour=false', query: { withVirtualTour: 'false' }, matching: doc(), notMatching: withAdvert({ virtualTour: 'https://tour.example/1' }) },
  {
    criterion: 'fromExpiredAt/toExpiredAt',
    query: { fromExpiredAt: '2026-03-01', toExpiredAt: '2026-03-31' },
    matching: withAdvert({ expired: true, expiredAt: '2026-03-31T21:59:59+00:00' }),
    notMatching: withAdvert({ expired: true, expiredAt: '2026-03-31T22:00:00+00:00' }),
  },
  { criterion: 'geoAccuracy', query: { geoAccuracy: '1' }, matching: withAccuracy(1), notMatching: withAccuracy(2) },
  { criterion: 'geoAccuracy missing', query: { geoAccuracy: ['1', '2'] }, matching: withAccuracy(2), notMatching: doc() },
];

const portalB = anAdvert({ uuid: '1a2b3c4d-0000-4000-8000-000000000002', site: 'synthetic-portal-b' });

const otherCases: Case[] = [
  { criterion: 'includedSites', query: { includedSites: 'synthetic-portal-b' }, matching: doc({ adverts: [anAdvert(), portalB] }), notMatching: doc() },
  { criterion: 'excludedSites', query: { excludedSites: 'synthetic-portal-b' }, matching: doc(), notMatching: doc({ adverts: [anAdvert(), portalB] }) },
  {
    criterion: 'eventPriceVariationMin/Max',
    query: { eventPriceVariationMax: '-3' },
    matching: withAdvert({ events: [anEvent()] }),
    notMatching: withAdvert({ events: [anEvent({ percentVariation: -2 })] }),
  },
  {
    criterion: 'eventPriceVariationFromCreatedAt/ToCreatedAt',
    query: { eventPriceVariationFromCreatedAt: '2026-02-15', eventPriceVariationToCreatedAt: '2026-02-15' },
    matching: withAdvert({ events: [anEvent()] }),
    notMatching: withAdvert({ events: [anEvent({ createdAt: '2026-02-16T09:00:00+00:00' })] }),
  },
  {
    criterion: 'eventPriceVariation ignores surface events',
    query: { eventPriceVariationMax: '-3' },
    matching: withAdvert({ events: [anEvent()] }),
    notMatching: withAdvert({ events: [anEvent({ fieldName: 'surface' })] }),
  },
  {
    criterion: 'eventSurfaceVariation…',
    query: { eventSurfaceVariationMin: '5', eventSurfaceVariationFromCreatedAt: '2026-02-01' },
    matching: withAdvert({ events: [anEvent({ fieldName: 'surface', percentVariation: 10 })] }),
    notMatching: withAdvert({ events: [anEvent({ percentVariation: 10 })] }),
  },
  {
    criterion: 'excludedProperties',
    query: { excludedProperties: '/properties/11111111-2222-4333-8444-555555555555' },
    matching: doc(),
    notMatching: doc({ uuid: '11111111-2222-4333-8444-555555555555' }),
  },
  { criterion: 'radius', query: { lat: '45.76', lon: '4.86', radius: '1' }, matching: doc(), notMatching: doc({ locations: { lat: 45.78, lon: 4.86 } }) },
  { criterion: 'radius without coordinates', query: { lat: '45.76', lon: '4.86', radius: '1' }, matching: doc(), notMatching: doc({ locations: null }) },
  {
    criterion: 'geoShapes (union)',
    query: {
      geoShapes: [
        [['0', '0'], ['1', '0'], ['1', '1'], ['0', '0']],
        [['4.8', '45.7'], ['4.9', '45.7'], ['4.9', '45.8'], ['4.8', '45.8'], ['4.8', '45.7']],
      ],
    },
    matching: doc(),
    notMatching: doc({ locations: { lat: 45.9, lon: 4.85 } }),
  },
  { criterion: 'expressions', query: { expressions: [[{ word: 'travau' }]] }, matching: doc(), notMatching: doc({ description: 'Refait à neuf', adverts: [anAdvert({ description: '' })] }) },
];

describe.each([
  ['property-level', propertyLevelCases],
  ['advert-level', advertLevelCases],
  ['sites, events, places, geography and text', otherCases],
])('matches: %s criteria', (_family, cases) => {
  it.each(cases)('$criterion', ({ query, matching, notMatching }) => {
    const criteria = criteriaOf(query);
    expect(matches(criteria, matching)).toBe(true);
    expect(matches(criteria, notMatching)).toBe(false);
  });
});

describe('matches: defaults', () => {
  it('matches any coherent property without criteria', () => {
    expect(matches(criteriaOf({}), doc())).toBe(true);
  });

  it('matches expired and live properties when expired is absent', () => {
    expect(matches(criteriaOf({}), doc({ expired: true }))).toBe(true);
  });

  it('keeps an incoherent price when withCoherentPrice=false', () => {
    expect(matches(criteriaOf({ withCoherentPrice: 'false' }), doc({ pricePerMeter: 45 }))).toBe(true);
  });

  it('does not need adverts when no advert-level criterion is given', () => {
    expect(matches(criteriaOf({ budgetMax: '300000' }), doc({ adverts: [] }))).toBe(true);
  });
});

describe('matches: one advert must satisfy every advert-level criterion', () => {
  const cheapCharges = anAdvert({ uuid: '1a2b3c4d-0000-4000-8000-00000000000a', rentalCharges: 80, virtualTour: null });
  const withTour = anAdvert({ uuid: '1a2b3c4d-0000-4000-8000-00000000000b', rentalCharges: 200, virtualTour: 'https://tour.example/b' });
  const both = anAdvert({ uuid: '1a2b3c4d-0000-4000-8000-00000000000c', rentalCharges: 90, virtualTour: 'https://tour.example/c' });
  const criteria = criteriaOf({ rentalChargesMax: '100', withVirtualTour: 'true' });

  it('does not match when advert A meets one criterion and advert B the other', () => {
    expect(matches(criteria, doc({ adverts: [cheapCharges, withTour] }))).toBe(false);
  });

  it('matches when one advert meets both', () => {
    expect(matches(criteria, doc({ adverts: [cheapCharges, withTour, both] }))).toBe(true);
  });

  it('applies ranges of one advert together too', () => {
    const fewLotsLowBuilding = anAdvert({ floorQuantity: 2, lotCount: 10 });
    const manyLotsHighBuilding = anAdvert({ floorQuantity: 8, lotCount: 50 });
    const criteria = criteriaOf({ floorQuantityMin: '5', lotCountMax: '20' });
    expect(matches(criteria, doc({ adverts: [fewLotsLowBuilding, manyLotsHighBuilding] }))).toBe(false);
    expect(matches(criteria, doc({ adverts: [fewLotsLowBuilding, anAdvert({ floorQuantity: 8, lotCount: 10 })] }))).toBe(true);
  });
});

describe('matches: advertPriceMin/Max read the adverts that have not expired', () => {
  const live = (price: number) => anAdvert({ price, expired: false });
  const expired = (price: number) => anAdvert({ price, expired: true, expiredAt: '2026-02-01T10:00:00+00:00' });
  const criteria = criteriaOf({ advertPriceMin: '200000', advertPriceMax: '250000' });

  it('matches when any live advert is priced within the bounds, both inclusive', () => {
    expect(matches(criteria, doc({ adverts: [live(300_000), live(200_000)] }))).toBe(true);
    expect(matches(criteria, doc({ adverts: [live(250_000)] }))).toBe(true);
    expect(matches(criteria, doc({ adverts: [live(199_999), live(250_001)] }))).toBe(false);
  });

  it('does not count an expired advert, nor the property price', () => {
    expect(matches(criteria, doc({ price: 220_000, adverts: [expired(220_000), live(400_000)] }))).toBe(false);
    expect(matches(criteria, doc({ price: 400_000, adverts: [expired(400_000), live(220_000)] }))).toBe(true);
    expect(matches(criteriaOf({ advertPriceMin: '1' }), doc({ adverts: [] }))).toBe(false);
  });

  it('is not one of the criteria a single advert meets together', () => {
    const tourAbovePrice = anAdvert({ price: 400_000, expired: false, virtualTour: 'https://tour.example/a' });
    const inPriceNoTour = anAdvert({ price: 220_000, expired: false, virtualTour: null });
    expect(matches(criteriaOf({ advertPriceMax: '250000', withVirtualTour: 'true' }), doc({ adverts: [tourAbovePrice, inPriceNoTour] }))).toBe(true);
  });
});

describe('matches: events satisfy all their bounds at once', () => {
  it('does not match an old large drop and a recent small one', () => {
    const criteria = criteriaOf({ eventPriceVariationMax: '-10', eventPriceVariationFromCreatedAt: '2026-02-10' });
    const oldDrop = anEvent({ percentVariation: -15, createdAt: '2026-01-05T09:00:00+00:00' });
    const recentDrop = anEvent({ percentVariation: -2, createdAt: '2026-02-15T09:00:00+00:00' });
    expect(matches(criteria, withAdvert({ events: [oldDrop, recentDrop] }))).toBe(false);
    expect(matches(criteria, doc({ adverts: [anAdvert({ events: [oldDrop] }), anAdvert({ events: [{ ...recentDrop, percentVariation: -12 }] })] }))).toBe(true);
  });
});

describe('matches: places', () => {
  const inParis15 = doc({ city: aCity({ id: 75115, cityParentId: 75056, insee: '75115', zipcode: '75015', department: { code: '75', id: 75, name: 'Paris' } }) });
  const inMarseille1WithoutParent = doc({ city: aCity({ id: 13201, cityParentId: null, insee: '13201', zipcode: '13001', department: { code: '13', id: 13, name: 'Bouches-du-Rhône' } }) });
  const inBourg = doc({ city: aCity({ id: 1053, cityParentId: null, insee: '01053', zipcode: '01000', department: { code: '01', id: 1, name: 'Ain' } }) });
  const inLyon3 = doc();
  const nowhere = doc({ city: null });

  it('finds an arrondissement under its commune, from the document or from the table', () => {
    expect(matches(criteriaOf({ includedCities: '/cities/75056' }), inParis15)).toBe(true);
    expect(matches(criteriaOf({ includedCities: '/cities/13055' }), inMarseille1WithoutParent)).toBe(true);
    expect(matches(criteriaOf({ includedCities: '/cities/69123' }), inLyon3)).toBe(true);
    expect(matches(criteriaOf({ includedCities: '/cities/69123' }), inParis15)).toBe(false);
  });

  it('finds an arrondissement under its commune INSEE code', () => {
    expect(matches(criteriaOf({ includedInseeCodes: '75056' }), inParis15)).toBe(true);
    expect(matches(criteriaOf({ excludedInseeCodes: '13055' }), inMarseille1WithoutParent)).toBe(false);
  });

  it('reads included lists of different kinds as one union of places', () => {
    const criteria = criteriaOf({ includedCities: '/cities/75056', includedDepartments: '/departments/1', includedZipcodes: '69003' });
    expect([inParis15, inBourg, inLyon3, inMarseille1WithoutParent].map((d) => matches(criteria, d))).toEqual([true, true, true, false]);
  });

  it('lets excluded lists remove places the included lists cover', () => {
    expect(matches(criteriaOf({ includedCities: '/cities/75056', excludedCities: '/cities/75115' }), inParis15)).toBe(false);
    expect(matches(criteriaOf({ includedDepartments: '/departments/69', excludedZipcodes: '69003' }), inLyon3)).toBe(false);
    expect(matches(criteriaOf({ includedDepartments: '/departments/69', excludedInseeCodes: '69383' }), inLyon3)).toBe(false);
  });

  it('reads each place kind', () => {
    expect(matches(criteriaOf({ includedDepartments: '/departments/69' }), inLyon3)).toBe(true);
    expect(matches(criteriaOf({ includedDepartments: '/departments/69' }), inBourg)).toBe(false);
    expect(matches(criteriaOf({ includedInseeCodes: '01053' }), inBourg)).toBe(true);
    expect(matches(criteriaOf({ includedZipcodes: '75015' }), inParis15)).toBe(true);
    expect(matches(criteriaOf({ excludedCities: '/cities/1053' }), inBourg)).toBe(false);
    expect(matches(criteriaOf({ excludedCities: '/cities/1053' }), inLyon3)).toBe(true);
  });

  it("counts every postal code of a commune, but not the parent commune's arrondissement codes", () => {
    const multiCode = doc({ city: aCity({ id: 38185, cityParentId: null, insee: '38185', zipcode: '38000', groupedCityZipcodes: ['38000', '38100'], hasGroupedByZipcode: true }) });
    const parisItself = doc({ city: aCity({ id: 75056, cityParentId: null, insee: '75056', zipcode: '75001', hasGroupedByName: true, groupedCityZipcodes: ['75001', '75015'] }) });
    expect(matches(criteriaOf({ includedZipcodes: '38100' }), multiCode)).toBe(true);
    expect(matches(criteriaOf({ includedZipcodes: '75015' }), parisItself)).toBe(false);
  });

  it('keeps a property without a city out of included places and clear of excluded ones', () => {
    expect(matches(criteriaOf({ includedCities: '/cities/75056' }), nowhere)).toBe(false);
    expect(matches(criteriaOf({ excludedCities: '/cities/75056' }), nowhere)).toBe(true);
  });
});

describe('matches: geography', () => {
  it('includes the radius bound', () => {
    const at = { lat: 45.7597, lon: 4.8553 };
    const oneKmNorth = { lat: at.lat + 1 / 111.195, lon: at.lon };
    expect(matches(criteriaOf({ lat: String(at.lat), lon: String(at.lon), radius: '1.0001' }), doc({ locations: oneKmNorth }))).toBe(true);
    expect(matches(criteriaOf({ lat: String(at.lat), lon: String(at.lon), radius: '0.999' }), doc({ locations: oneKmNorth }))).toBe(false);
  });

  it('does not filter on lat and lon without a radius', () => {
    expect(matches(criteriaOf({ lat: '0', lon: '0' }), doc({ locations: null }))).toBe(true);
  });
});
