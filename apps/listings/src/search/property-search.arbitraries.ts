/**
 * Random property documents and criteria queries for the equivalence property test. Values come
 * from small pools so that filters hit and miss alike and sort values tie: a few cities (Paris,
 * Lyon and Marseille arrondissements among them), points on and around shape edges, dates a few
 * hours apart across time zones, words with accents and apostrophes for the expressions.
 */
import { greatCircleKm, type Advert, type AdvertEvent, type City, type PropertyDocument } from '@immo/contracts';
import { ORDER_FIELDS } from '@immo/property-criteria';
import fc from 'fast-check';
import { aCity, anAdvert, anEvent, aPropertyDocument } from './property-document.fixture';

/**
 * Uuids with hex letters, so that an upper-case one differs from its lower-case form; more than 32,
 * so that document numbers spill into a second bitset word.
 */
export const uuidPool = (size: number): readonly string[] =>
  Array.from({ length: size }, (_, n) => {
    const uuid = `abcdef00-0000-4000-8000-${String(n).padStart(12, '0')}`;
    return n % 8 === 7 ? uuid.toUpperCase() : uuid;
  });
export const UUIDS = uuidPool(40);

const TIMESTAMPS = [
  '2026-01-15T08:00:00+00:00',
  '2026-02-01T10:00:00+00:00',
  // The same instant as the one above, written in Paris time.
  '2026-02-01T11:00:00+01:00',
  '2026-02-20T10:00:00+00:00',
  '2026-02-20T23:30:00+00:00',
  '2026-03-05T10:00:00+00:00',
  'not a date',
];

/** Query dates in time order of their lower-bound reading. */
const QUERY_DATES = ['2026-01-15', '2026-02-01', '2026-02-01 11:00:00', '2026-02-20', '2026-02-21T00:15:00+01:00', '2026-03-05'];

const PLACES = {
  paris: { lat: 48.8566, lon: 2.3522 },
  paris15: { lat: 48.8417, lon: 2.2986 },
  // Due east of Paris: at a radius reaching it exactly, it sits on the box's east edge.
  meaux: { lat: 48.8566, lon: 2.8781 },
  lyon: { lat: 45.7597, lon: 4.8553 },
  marseille: { lat: 43.2965, lon: 5.3698 },
  ajaccio: { lat: 41.9192, lon: 8.7386 },
  brest: { lat: 48.39, lon: -4.49 },
  london: { lat: 51.5074, lon: -0.1278 },
  reunion: { lat: -21.1151, lon: 55.5364 },
};
const POINTS = Object.values(PLACES);

const CITIES: readonly City[] = [
  aCity(),
  aCity({ id: 69123, cityParentId: null, name: 'Lyon', insee: '69123', zipcode: '69001', hasGroupedByName: true, groupedCityZipcodes: ['69001', '69003'] }),
  aCity({ id: 75115, cityParentId: 75056, name: 'Paris 15e', insee: '75115', zipcode: '75015', department: { code: '75', id: 75, name: 'Paris' } }),
  aCity({ id: 75056, cityParentId: null, name: 'Paris', insee: '75056', zipcode: '75001', hasGroupedByName: true, groupedCityZipcodes: ['75001', '75015'], department: { code: '75', id: 75, name: 'Paris' } }),
  // An arrondissement without its parent: the library's table says which commune covers it.
  aCity({ id: 13201, cityParentId: null, name: 'Marseille 1er', insee: '13201', zipcode: '13001', department: { code: '13', id: 13, name: 'Bouches-du-Rhône' } }),
  aCity({ id: 2004, cityParentId: null, name: 'Ajaccio', insee: '2a004', zipcode: '20000', department: { code: '2A', id: 20, name: 'Corse-du-Sud' } }),
  aCity({ id: 69266, cityParentId: null, name: 'Villeurbanne', insee: '69266', zipcode: '69100', groupedCityZipcodes: ['69100', '69603'] }),
];

// Phrases and their words on their own, so that a phrase search meets texts holding its words apart.
const PHRASES = [
  'Appartement',
  'appartements',
  'Salle de bain',
  "salle d'eau",
  'salle',
  'bains',
  'Rez-de-chaussée',
  'chaussée',
  'travaux à prévoir',
  'Travaux',
  'cœur de ville',
  'coeur',
  'Été',
  '64 m²',
  'm2',
  'vue mer',
  'de',
];
// Reference numbers take the vocabulary past 127 tokens, whose ids need two bytes in sequences.
const reference = fc.nat(399).map((n) => `réf. ${n}`);
const text = fc
  .array(fc.oneof({ arbitrary: fc.constantFrom(...PHRASES), weight: 4 }, { arbitrary: reference, weight: 1 }), { maxLength: 5 })
  .map((words) => words.join(' '));

const option = <T>(values: readonly T[]): fc.Arbitrary<T | null> => fc.option(fc.constantFrom(...values), { nil: null, freq: 3 });

const event: fc.Arbitrary<AdvertEvent> = fc
  .record({ fieldName: fc.constantFrom('price', 'surface', 'room'), percentVariation: fc.constantFrom(-10, -3.67, 0, 5, 12.5), createdAt: fc.constantFrom(...TIMESTAMPS) })
  .map((overrides) => anEvent(overrides));

const rating = fc.option(fc.record({ category: fc.constantFrom('A', 'b', 'C', 'D', 'G', 'NC', ''), value: fc.constantFrom(50, 212, 330) }), { nil: null });

const advert: fc.Arbitrary<Advert> = fc
  .record({
    site: fc.constantFrom('portal-a', 'portal-b', 'agency-c'),
    siteCategory: fc.constantFrom('portal', 'agency-network'),
    publisherType: fc.constantFrom<0 | 1>(0, 1),
    title: text,
    description: text,
    // Around the advert price bounds drawn below (ADVERT_PRICE_BOUNDS): below, on, between and above them.
    price: fc.constantFrom(150_000, 220_000, 289_000, 289_000.5, 400_000),
    expired: fc.constantFrom(false, false, true),
    priceExcludingFees: option([100_000, 275_000, 275_000.5]),
    floorQuantity: option([1, 6]),
    lotCount: option([2, 24]),
    condominiumFees: option([0, 1800]),
    constructionYear: option([1900, 1965, 2020]),
    feesPercentage: option([0, 5.09]),
    feesResponsibility: fc.constantFrom<0 | 1 | null>(0, 1, null),
    rentalCharges: option([50, 100]),
    rentalPledge: option([800]),
    renterFees: option([300]),
    inventoryPrice: option([150]),
    energy: rating,
    greenHouseGas: rating,
    virtualTour: fc.constantFrom(null, '', '   ', 'https://tour.example/1'),
    events: fc.array(event, { maxLength: 2 }),
    createdAt: fc.constantFrom(...TIMESTAMPS),
    expiredAt: fc.option(fc.constantFrom(...TIMESTAMPS), { nil: null }),
    geoAccuracy: fc.option(fc.constantFrom(1, 2), { freq: 4 }),
  })
  .map(({ publisherType, geoAccuracy, ...overrides }) => {
    const built = anAdvert({ ...overrides, publisher: { category: 'agency', name: 'Agence', type: publisherType } });
    return geoAccuracy === null ? built : ({ ...built, geoAccuracy } as Advert);
  });

const location = fc.option(
  fc.oneof(
    fc.constantFrom(...POINTS),
    fc.record({ lat: fc.double({ min: 41, max: 51.5, noNaN: true }), lon: fc.double({ min: -5.5, max: 10, noNaN: true }) }),
  ),
  { nil: null, freq: 5 },
);

export const propertyDocumentOf = (uuids: readonly string[]): fc.Arbitrary<PropertyDocument> =>
  fc
  .record({
    uuid: fc.constantFrom(...uuids),
    transactionType: fc.constantFrom(0, 1, 1, 3),
    propertyType: fc.constantFrom(0, 1, 3, 5, 6, 9),
    price: fc.constantFrom(0, 1200, 150_000, 289_000, 289_000, null as unknown as number, Number.NaN),
    pricePerMeter: option([0.5, 3, 18.75, 250, 4515.63, 30_000, 60_000]),
    surface: option([12, 64, 64, 120]),
    landSurface: option([0, 500]),
    room: option([1, 3, 3, 5]),
    bedroom: option([0, 2]),
    furnished: fc.constantFrom(null, true, false),
    expired: fc.boolean(),
    createdAt: fc.constantFrom(...TIMESTAMPS),
    updatedAt: fc.constantFrom(...TIMESTAMPS),
    locations: location,
    city: fc.option(fc.constantFrom(...CITIES), { nil: null, freq: 6 }),
    title: text,
    description: text,
    adverts: fc.array(advert, { maxLength: 3 }),
  })
  .map((overrides) => aPropertyDocument(overrides));

export const propertyDocument = propertyDocumentOf(UUIDS);

type Query = Record<string, unknown>;

const ADVERT_PRICE_BOUNDS = [180_000, 220_000, 289_000, 300_000];

/** A `<key>Min`/`<key>Max` pair (or one side) from ordered values, never crossed. */
function range(key: string, values: readonly number[]): fc.Arbitrary<Query> {
  return fc.tuple(fc.nat(values.length - 1), fc.nat(values.length - 1), fc.constantFrom('both', 'min', 'max')).map(([i, j, sides]) => {
    const [low, high] = [values[Math.min(i, j)], values[Math.max(i, j)]];
    return { ...(sides !== 'max' && { [`${key}Min`]: low }), ...(sides !== 'min' && { [`${key}Max`]: high }) };
  });
}

function dateRange(from: string, to: string): fc.Arbitrary<Query> {
  return fc.tuple(fc.nat(QUERY_DATES.length - 1), fc.nat(QUERY_DATES.length - 1), fc.constantFrom('both', 'from', 'to')).map(([i, j, sides]) => ({
    ...(sides !== 'to' && { [from]: QUERY_DATES[Math.min(i, j)] }),
    ...(sides !== 'from' && { [to]: QUERY_DATES[Math.max(i, j)] }),
  }));
}

const list = <T>(name: string, values: readonly T[]): fc.Arbitrary<Query> =>
  fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }).map((items) => ({ [name]: items }));
const scalar = <T>(name: string, values: readonly T[]): fc.Arbitrary<Query> => fc.constantFrom(...values).map((value) => ({ [name]: value }));

const RINGS = [
  // Around Paris.
  [[2.2, 48.8], [2.5, 48.8], [2.5, 48.9], [2.2, 48.9], [2.2, 48.8]],
  // A vertex exactly on Lyon.
  [[PLACES.lyon.lon, PLACES.lyon.lat], [5.5, 45.0], [4.0, 45.0], [PLACES.lyon.lon, PLACES.lyon.lat]],
  // An edge exactly through Marseille.
  [[5.0, PLACES.marseille.lat], [5.6, PLACES.marseille.lat], [5.6, 43.0], [5.0, 43.0], [5.0, PLACES.marseille.lat]],
  // Most of metropolitan France, concave on its east side.
  [[-5, 42], [8, 42], [3, 46.5], [8, 51], [-5, 51], [-5, 42]],
];

const conditionWord = fc.constantFrom(
  'appart',
  'Appartement',
  'salle de b',
  'salle de bain',
  "salle d'",
  'rez de chaussée',
  'TRAVAUX',
  'trav',
  'cœur',
  'coeur de',
  'ete',
  'm2',
  '64 m',
  'de',
  'vue',
  'zzz',
  '12',
  'réf 3',
  'ref 30',
);
const expressions = fc
  .array(fc.array(fc.record({ word: conditionWord, options: fc.record({ includes: fc.boolean(), strict: fc.boolean() }, { requiredKeys: [] }) }), { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 2,
  })
  .map((groups) => ({ expressions: groups }));

const radius = fc
  .tuple(fc.constantFrom(...POINTS), fc.oneof(fc.constantFrom(0.5, 4.2, 50, 400, 800, 3000, 25_000), fc.constantFrom(...POINTS)))
  .map(([center, reach]) => ({
    lat: center.lat,
    lon: center.lon,
    // A radius exactly as long as the distance to another known point tests the inclusive edge.
    radius: typeof reach === 'number' ? reach : Math.max(greatCircleKm(center, reach), 0.001),
  }));

const filters: fc.Arbitrary<Query>[] = [
  scalar('transactionType', [0, 1]),
  list('propertyTypes', [0, 1, 3, 5, 6]),
  list('publisherTypes', [0, 1]),
  range('budget', [0, 1200, 150_000, 289_000, 500_000]),
  range('advertPrice', ADVERT_PRICE_BOUNDS),
  range('pricePerMeter', [0.5, 18.75, 250, 4515.63, 60_000]),
  range('surface', [12, 64, 100]),
  range('landSurface', [0, 500]),
  range('room', [1, 3, 5]),
  range('bedroom', [0, 2]),
  scalar('furnished', ['true', 'false']),
  scalar('expired', ['true', 'false', 'null']),
  scalar('withLocation', ['true', 'false']),
  scalar('withCoherentPrice', ['true', 'false', 'false', 'false']),
  dateRange('fromDate', 'toDate'),
  dateRange('fromUpdatedAt', 'toUpdatedAt'),
  range('priceExcludingFees', [100_000, 275_000, 275_000.5]),
  range('floorQuantity', [1, 6]),
  range('condominiumFees', [0, 1800]),
  range('constructionYear', [1900, 1965, 2020]),
  range('feesPercentage', [0, 5.09]),
  range('rentalCharges', [50, 100]),
  range('energyValue', [50, 212, 330]),
  range('greenHouseGasValue', [50, 212]),
  scalar('feesResponsibility', [0, 1]),
  list('energyCategories', ['a', 'B', 'C', 'D', 'G']),
  list('greenHouseGasCategories', ['A', 'b', 'D']),
  scalar('withVirtualTour', ['true', 'false']),
  dateRange('fromExpiredAt', 'toExpiredAt'),
  list('geoAccuracy', [1, 2]),
  list('includedSites', ['portal-a', 'portal-b', 'agency-c', 'elsewhere']),
  list('excludedSites', ['portal-a', 'agency-c']),
  list('includedSiteCategories', ['portal', 'agency-network', 'elsewhere']),
  list('excludedSiteCategories', ['portal']),
  range('eventPriceVariation', [-10, -3.67, 0, 5]),
  dateRange('eventPriceVariationFromCreatedAt', 'eventPriceVariationToCreatedAt'),
  range('eventSurfaceVariation', [-10, 0, 12.5]),
  dateRange('eventSurfaceVariationFromCreatedAt', 'eventSurfaceVariationToCreatedAt'),
  list('includedCities', ['/cities/75056', '69123', '/cities/69383', '13055', '75115', '2004']),
  list('excludedCities', ['75056', '/cities/69383', '13055']),
  list('includedDepartments', ['/departments/75', '69', '20']),
  list('includedInseeCodes', ['75056', '69383', '2A004', '13055', '69266']),
  list('excludedInseeCodes', ['69123', '2a004']),
  list('includedZipcodes', ['75015', '69003', '69603', '20000']),
  list('excludedZipcodes', ['75001', '69100']),
  fc.uniqueArray(fc.constantFrom(...UUIDS), { minLength: 1, maxLength: 3 }).map((uuids) => ({
    excludedProperties: uuids.map((uuid, i) => (i % 2 === 0 ? uuid : `/documents/properties/${uuid}`)),
  })),
  radius,
  fc.uniqueArray(fc.constantFrom(...RINGS), { minLength: 1, maxLength: 2 }).map((rings) => ({ geoShapes: rings })),
  expressions,
];

const paging: fc.Arbitrary<Query> = fc
  .record(
    {
      page: fc.integer({ min: 1, max: 3 }),
      itemsPerPage: fc.constantFrom(0, 1, 2, 5, 30),
      sortMode: fc.constantFrom('property', 'advert'),
      order: fc
        .uniqueArray(fc.tuple(fc.constantFrom(...ORDER_FIELDS), fc.constantFrom('asc', 'desc')), { selector: ([field]) => field, minLength: 1, maxLength: 3 })
        .map((clauses) => Object.fromEntries(clauses)),
    },
    { requiredKeys: [] },
  );

/**
 * Advert price bounds alone, with paging: a property whose live advert prices lie below and above
 * the bounds is decided by its advert rows, which few draws of `criteriaQuery` reach.
 */
export const advertPriceQuery: fc.Arbitrary<Query> = fc.tuple(paging, range('advertPrice', ADVERT_PRICE_BOUNDS)).map(([page, bounds]) => ({ ...page, ...bounds }));

/** A query of a few filters, paging and order; valid by construction (parsing it must succeed). */
export const criteriaQuery: fc.Arbitrary<Query> = fc
  .tuple(
    paging,
    // Distinct filters: two draws of one range could cross its bounds, which parsing refuses.
    fc.subarray(filters, { maxLength: 4 }).chain((chosen) => fc.tuple(...chosen)),
  )
  .map(([page, parts]) => Object.assign({}, page, ...parts) as Query);

/**
 * Properties around one another, for the similar-properties test: two transactions and types,
 * prices and surfaces within or just beyond the tolerances, coherent and incoherent prices per m²,
 * Paris and its 15th arrondissement (4 km apart) or Meaux (39 km east), so that most draws have
 * candidates and each rule decides some of them.
 */
export const neighbourPropertyOf = (uuids: readonly string[]): fc.Arbitrary<PropertyDocument> =>
  fc
    .tuple(
      propertyDocumentOf(uuids),
      fc.record({
        transactionType: fc.constantFrom(0, 0, 0, 1),
        propertyType: fc.constantFrom(0, 0, 1),
        price: fc.constantFrom(150_000, 180_000, 200_000, 260_000, null as unknown as number),
        pricePerMeter: fc.constantFrom(3, 2_500, 4_515.63, null as unknown as number),
        surface: fc.constantFrom(50, 64, 90, null as unknown as number),
        room: fc.constantFrom(2, 3, 5, null as unknown as number),
        locations: fc.constantFrom(PLACES.paris, PLACES.paris15, PLACES.meaux, null),
        city: fc.constantFrom(...CITIES.filter((city) => city.insee.startsWith('75')), null),
      }),
    )
    .map(([property, near]) => ({ ...property, ...near }));
