import type { Violation } from '@immo/contracts';
import type { PropertyCriteria, RangeKey } from './criteria';
import { RANGE_KEYS } from './endpoint-parameters';
import { MAX_ARRAY_ITEMS, MAX_EXPRESSION_WORDS, MAX_SHAPE_POINTS } from './limits';
import { parsePropertyCriteria, type ParseCriteriaOptions } from './parse-criteria';

function accepted(query: Record<string, unknown>, options?: ParseCriteriaOptions): { criteria: PropertyCriteria; ignored: string[] } {
  const result = parsePropertyCriteria(query, options);
  if (!result.ok) throw new Error(`Unexpected violations: ${JSON.stringify(result.violations)}`);
  return result;
}

function violationsOf(query: Record<string, unknown>, options?: ParseCriteriaOptions): Violation[] {
  const result = parsePropertyCriteria(query, options);
  if (result.ok) throw new Error('expected violations');
  return result.violations;
}

const pathsOf = (query: Record<string, unknown>, options?: ParseCriteriaOptions): string[] =>
  violationsOf(query, options)
    .map((violation) => violation.propertyPath)
    .sort();

const paris = (localIsoWithOffset: string): number => Date.parse(localIsoWithOffset);

const SQUARE = [
  ['2.30', '48.85'],
  ['2.40', '48.85'],
  ['2.40', '48.90'],
  ['2.30', '48.90'],
  ['2.30', '48.85'],
];

describe('parsePropertyCriteria: defaults', () => {
  it('gives the spec defaults for an empty query', () => {
    const { criteria, ignored } = accepted({});
    expect(ignored).toEqual([]);
    expect(criteria).toMatchObject({
      page: 1,
      itemsPerPage: 10,
      order: [{ field: 'createdAt', direction: 'desc' }],
      sortMode: 'property',
      withCoherentPrice: true,
      propertyTypes: [],
      includedCities: [],
      geoShapes: [],
      expressions: [],
      budget: {},
      date: {},
    });
    expect(criteria).not.toHaveProperty('expired');
    expect(criteria).not.toHaveProperty('transactionType');
    expect(criteria).not.toHaveProperty('point');
    expect(criteria).not.toHaveProperty('aggregationInterval');
  });

  it('treats empty values as not given, as HTML forms send them', () => {
    const { criteria } = accepted({ budgetMin: '', furnished: '', propertyTypes: ['', '1'], fromDate: '' });
    expect(criteria.budget).toEqual({});
    expect(criteria).not.toHaveProperty('furnished');
    expect(criteria.propertyTypes).toEqual([1]);
    expect(criteria.date).toEqual({});
  });
});

describe('parsePropertyCriteria: paging and sorting', () => {
  it('reads page and itemsPerPage', () => {
    expect(accepted({ page: '3', itemsPerPage: '25' }).criteria).toMatchObject({ page: 3, itemsPerPage: 25 });
  });

  it('caps itemsPerPage at 30 without an error', () => {
    expect(accepted({ itemsPerPage: '500' }).criteria.itemsPerPage).toBe(30);
    expect(accepted({ itemsPerPage: '99999999999999999999' }).criteria.itemsPerPage).toBe(30);
  });

  it('accepts itemsPerPage=0 to ask for the count only', () => {
    expect(accepted({ itemsPerPage: '0' }).criteria.itemsPerPage).toBe(0);
  });

  it('refuses a page below 1 and malformed paging values', () => {
    expect(pathsOf({ page: '0' })).toEqual(['page']);
    expect(pathsOf({ page: 'two', itemsPerPage: '-1' })).toEqual(['itemsPerPage', 'page']);
    expect(violationsOf({ itemsPerPage: '1.5' })[0]).toEqual({ propertyPath: 'itemsPerPage', message: 'must be an integer' });
  });

  it('keeps order clauses in the order given', () => {
    const { criteria } = accepted({ order: { price: 'asc', createdAt: 'DESC', surface: 'desc' } });
    expect(criteria.order).toEqual([
      { field: 'price', direction: 'asc' },
      { field: 'createdAt', direction: 'desc' },
      { field: 'surface', direction: 'desc' },
    ]);
  });

  it('reads every order field', () => {
    const { criteria } = accepted({ order: { createdAt: 'asc', pricePerMeter: 'asc', price: 'asc', surface: 'asc', updatedAt: 'asc' } });
    expect(criteria.order.map((clause) => clause.field)).toEqual(['createdAt', 'pricePerMeter', 'price', 'surface', 'updatedAt']);
  });

  it('refuses a direction other than asc or desc, and an order without a field', () => {
    expect(violationsOf({ order: { price: 'up' } })).toEqual([{ propertyPath: 'order[price]', message: 'must be one of asc, desc' }]);
    expect(pathsOf({ order: 'asc' })).toEqual(['order']);
  });

  it('reads sortMode and refuses an unknown one', () => {
    expect(accepted({ sortMode: 'advert' }).criteria.sortMode).toBe('advert');
    expect(pathsOf({ sortMode: 'random' })).toEqual(['sortMode']);
  });
});

describe('parsePropertyCriteria: numeric ranges', () => {
  it.each(RANGE_KEYS as RangeKey[])('reads %sMin and %sMax as inclusive numbers', (key) => {
    const { criteria } = accepted({ [`${key}Min`]: '-1.5', [`${key}Max`]: '1e3' });
    expect(criteria[key]).toEqual({ min: -1.5, max: 1000 });
  });

  it('accepts numbers from a JSON saved search', () => {
    expect(accepted({ budgetMin: 100000, budgetMax: 200000 }).criteria.budget).toEqual({ min: 100000, max: 200000 });
  });

  it('accepts equal bounds', () => {
    expect(accepted({ surfaceMin: '50', surfaceMax: '50' }).criteria.surface).toEqual({ min: 50, max: 50 });
  });

  it('refuses a non-numeric value', () => {
    expect(violationsOf({ budgetMin: '12abc' })).toEqual([{ propertyPath: 'budgetMin', message: 'must be a number' }]);
    expect(pathsOf({ surfaceMax: '0x10', roomMin: 'Infinity' })).toEqual(['roomMin', 'surfaceMax']);
  });

  it('refuses a lower bound above its upper bound, naming both', () => {
    const violations = violationsOf({ budgetMin: '300000', budgetMax: '200000' });
    expect(violations.map((v) => v.propertyPath)).toEqual(['budgetMin', 'budgetMax']);
    expect(violations[0]?.message).toContain('budgetMax');
    expect(violations[1]?.message).toContain('budgetMin');
  });

  it('refuses a repeated single-value parameter', () => {
    expect(violationsOf({ budgetMin: ['1', '2'] })).toEqual([{ propertyPath: 'budgetMin', message: 'must be a single value' }]);
  });
});

describe('parsePropertyCriteria: dates', () => {
  it('reads a bare lower-bound date as Paris midnight (winter time)', () => {
    expect(accepted({ fromDate: '2026-02-01' }).criteria.date).toEqual({ from: paris('2026-02-01T00:00:00+01:00') });
  });

  it('extends a bare upper-bound date to the end of that day', () => {
    expect(accepted({ toDate: '2026-02-01' }).criteria.date).toEqual({ to: paris('2026-02-02T00:00:00+01:00') - 1 });
  });

  it('reads `YYYY-MM-DD hh:mm:ss` as Paris local time (summer time)', () => {
    expect(accepted({ fromUpdatedAt: '2026-07-14 10:00:00' }).criteria.updatedAt).toEqual({ from: paris('2026-07-14T10:00:00+02:00') });
  });

  it('reads ISO 8601 with Z, with an offset, and with a "+" a query string decoded as a space', () => {
    const { criteria } = accepted({
      fromExpiredAt: '2026-03-01T10:00:00Z',
      toExpiredAt: '2026-03-02T10:00:00.250+05:30',
      eventPriceVariationFromCreatedAt: '2026-03-01T10:00:00 01:00',
    });
    expect(criteria.expiredAt).toEqual({ from: Date.UTC(2026, 2, 1, 10), to: Date.parse('2026-03-02T10:00:00.250+05:30') });
    expect(criteria.eventPriceVariationCreatedAt).toEqual({ from: Date.UTC(2026, 2, 1, 9) });
  });

  it('reads ISO 8601 without an offset as Paris local time', () => {
    expect(accepted({ fromDate: '2026-01-10T08:30' }).criteria.date).toEqual({ from: paris('2026-01-10T08:30:00+01:00') });
  });

  it('gives the spring-forward day 23 hours and the fall-back day 25 hours', () => {
    const spring = accepted({ fromDate: '2026-03-29', toDate: '2026-03-29' }).criteria.date;
    expect(spring).toEqual({ from: paris('2026-03-29T00:00:00+01:00'), to: paris('2026-03-30T00:00:00+02:00') - 1 });
    expect((spring.to as number) + 1 - (spring.from as number)).toBe(23 * 3_600_000);
    const autumn = accepted({ fromDate: '2026-10-25', toDate: '2026-10-25' }).criteria.date;
    expect((autumn.to as number) + 1 - (autumn.from as number)).toBe(25 * 3_600_000);
  });

  it('reads every date parameter', () => {
    const { criteria } = accepted({
      fromDate: '2026-01-01',
      toDate: '2026-01-31',
      fromUpdatedAt: '2026-01-01',
      toUpdatedAt: '2026-01-31',
      fromExpiredAt: '2026-01-01',
      toExpiredAt: '2026-01-31',
      eventPriceVariationFromCreatedAt: '2026-01-01',
      eventPriceVariationToCreatedAt: '2026-01-31',
      eventSurfaceVariationFromCreatedAt: '2026-01-01',
      eventSurfaceVariationToCreatedAt: '2026-01-31',
    });
    const january = { from: paris('2026-01-01T00:00:00+01:00'), to: paris('2026-02-01T00:00:00+01:00') - 1 };
    for (const key of ['date', 'updatedAt', 'expiredAt', 'eventPriceVariationCreatedAt', 'eventSurfaceVariationCreatedAt'] as const) {
      expect(criteria[key]).toEqual(january);
    }
  });

  it('refuses malformed dates', () => {
    expect(pathsOf({ fromDate: '01/02/2026', toDate: '2026-02-30', fromUpdatedAt: '2026-01-01 25:00:00', toUpdatedAt: 'yesterday' })).toEqual([
      'fromDate',
      'fromUpdatedAt',
      'toDate',
      'toUpdatedAt',
    ]);
  });

  it('refuses a start after the end, naming both', () => {
    expect(pathsOf({ fromDate: '2026-03-02', toDate: '2026-03-01' })).toEqual(['fromDate', 'toDate']);
  });

  it('accepts a start and an end on the same bare date', () => {
    expect(accepted({ fromExpiredAt: '2026-03-01', toExpiredAt: '2026-03-01' }).criteria.expiredAt.to).toBeGreaterThan(0);
  });
});

describe('parsePropertyCriteria: enumerations and booleans', () => {
  it('reads the enumerations, a scalar counting as a one-item list', () => {
    const { criteria } = accepted({
      transactionType: '1',
      propertyTypes: ['0', '1', '1'],
      publisherTypes: '0',
      feesResponsibility: '1',
      energyCategories: ['a', 'B'],
      greenHouseGasCategories: 'g',
      geoAccuracy: '2',
    });
    expect(criteria).toMatchObject({
      transactionType: 1,
      propertyTypes: [0, 1],
      publisherTypes: [0],
      feesResponsibility: 1,
      energyCategories: ['A', 'B'],
      greenHouseGasCategories: ['G'],
      geoAccuracy: [2],
    });
  });

  it('accepts lists written with explicit indices or as integer-keyed objects', () => {
    expect(accepted({ geoAccuracy: { 0: '1', 1: '2' } }).criteria.geoAccuracy).toEqual([1, 2]);
  });

  it('refuses unknown enumeration values, naming the item', () => {
    expect(
      pathsOf({
        transactionType: '2',
        propertyTypes: ['0', '9'],
        publisherTypes: 'pro',
        feesResponsibility: '3',
        energyCategories: ['H'],
        geoAccuracy: ['3'],
      }),
    ).toEqual(['energyCategories[0]', 'feesResponsibility', 'geoAccuracy[0]', 'propertyTypes[1]', 'publisherTypes', 'transactionType']);
  });

  it('refuses a list written with named keys', () => {
    expect(pathsOf({ propertyTypes: { flat: '0' } })).toEqual(['propertyTypes']);
  });

  it('reads the booleans', () => {
    const { criteria } = accepted({ furnished: 'true', withLocation: '1', withVirtualTour: 'false', withCoherentPrice: '0', expired: 'false' });
    expect(criteria).toMatchObject({ furnished: true, withLocation: true, withVirtualTour: false, withCoherentPrice: false, expired: false });
  });

  it('reads expired=null as both, like an absent expired', () => {
    expect(accepted({ expired: 'null' }).criteria).not.toHaveProperty('expired');
    expect(accepted({ expired: 'true' }).criteria.expired).toBe(true);
  });

  it('refuses malformed booleans', () => {
    expect(pathsOf({ furnished: 'yes', expired: 'maybe', withCoherentPrice: '2' })).toEqual(['expired', 'furnished', 'withCoherentPrice']);
  });
});

describe('parsePropertyCriteria: places and references', () => {
  it('reduces IRIs to ids and normalises codes', () => {
    const uuid = '0B6F7A1E-3C2D-4E5F-8A9B-0C1D2E3F4A5B';
    const { criteria } = accepted({
      includedCities: ['/cities/75056', '69123'],
      excludedCities: '/cities/75115',
      includedDepartments: ['/departments/69', '201'],
      includedInseeCodes: ['2a004', '01001'],
      excludedInseeCodes: '75056',
      includedZipcodes: ['69003'],
      excludedZipcodes: '75015',
      includedSites: ['synthetic-portal-a'],
      excludedSites: 'synthetic-portal-b',
      excludedProperties: [uuid, `/documents/properties/${uuid}`, '/properties/11111111-2222-4333-8444-555555555555'],
    });
    expect(criteria).toMatchObject({
      includedCities: [75056, 69123],
      excludedCities: [75115],
      includedDepartments: [69, 201],
      includedInseeCodes: ['2A004', '01001'],
      excludedInseeCodes: ['75056'],
      includedZipcodes: ['69003'],
      excludedZipcodes: ['75015'],
      includedSites: ['synthetic-portal-a'],
      excludedSites: ['synthetic-portal-b'],
      excludedProperties: [uuid.toLowerCase(), '11111111-2222-4333-8444-555555555555'],
    });
  });

  it('refuses malformed IRIs and codes', () => {
    expect(
      pathsOf({
        includedCities: ['/departments/69'],
        excludedCities: 'Lyon',
        includedDepartments: '/cities/69123',
        includedInseeCodes: '6912',
        includedZipcodes: '6900A',
        excludedProperties: ['/documents/properties/42', '/cities/0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'],
      }),
    ).toEqual([
      'excludedCities',
      'excludedProperties[0]',
      'excludedProperties[1]',
      'includedCities[0]',
      'includedDepartments',
      'includedInseeCodes',
      'includedZipcodes',
    ]);
  });
});

describe('parsePropertyCriteria: geography', () => {
  it('reads lat, lon and radius', () => {
    expect(accepted({ lat: '45.76', lon: '4.85', radius: '2.5' }).criteria).toMatchObject({ point: { lat: 45.76, lon: 4.85 }, radiusKm: 2.5 });
  });

  it('refuses a radius without a centre, and half a centre', () => {
    expect(pathsOf({ radius: '3' })).toEqual(['radius']);
    expect(pathsOf({ lat: '45', radius: '3' })).toEqual(['lon', 'radius']);
    expect(pathsOf({ lon: '4' })).toEqual(['lat']);
  });

  it('refuses out-of-range coordinates and a radius that is not positive', () => {
    expect(pathsOf({ lat: '91', lon: '-181' })).toEqual(['lat', 'lon']);
    expect(pathsOf({ lat: '45', lon: '4', radius: '0' })).toEqual(['radius']);
  });

  it('reads geoShapes as closed [lon, lat] rings', () => {
    const { criteria } = accepted({ geoShapes: [SQUARE, SQUARE] });
    expect(criteria.geoShapes).toHaveLength(2);
    expect(criteria.geoShapes[0]?.[1]).toEqual([2.4, 48.85]);
  });

  it('refuses a shape of fewer than 4 points, an unclosed ring and bad coordinates', () => {
    const triangleWithoutClosure = SQUARE.slice(0, 3);
    const unclosed = SQUARE.slice(0, 4);
    const badPoint = [...SQUARE.slice(0, 2), ['200', '48.9'], ['2.3', 'north', '1'], SQUARE[0]];
    expect(pathsOf({ geoShapes: [triangleWithoutClosure, unclosed, badPoint] })).toEqual([
      'geoShapes[0]',
      'geoShapes[1]',
      'geoShapes[2][2][0]',
      'geoShapes[2][3]',
    ]);
  });
});

describe('parsePropertyCriteria: expressions', () => {
  it('reads groups of words with their options', () => {
    const { criteria } = accepted({
      expressions: [[{ word: 'Travau' }, { word: 'cave', options: { includes: 'false', strict: 'true' } }], [{ word: 'jardin' }]],
    });
    expect(criteria.expressions).toEqual([
      [
        { word: 'Travau', includes: true, strict: false },
        { word: 'cave', includes: false, strict: true },
      ],
      [{ word: 'jardin', includes: true, strict: false }],
    ]);
  });

  it('refuses a missing word, a word without letters and bad options', () => {
    expect(
      pathsOf({ expressions: [[{ options: { strict: 'true' } }, { word: '!!!' }, { word: 'cave', options: { includes: 'no' } }], 'jardin'] }),
    ).toEqual(['expressions[0][0][word]', 'expressions[0][1][word]', 'expressions[0][2][options][includes]', 'expressions[1]']);
  });

  it('explains the bracket structure when expressions or geoShapes are given as plain values', () => {
    expect(violationsOf({ expressions: 'cave' })).toEqual([
      { propertyPath: 'expressions', message: 'must be given as expressions[<group>][<index>][word]=<word>' },
    ]);
    expect(violationsOf({ expressions: ['cave'] })[0]?.message).toBe('must be a list of words such as expressions[0][0][word]=<word>');
    expect(violationsOf({ geoShapes: '2.3,48.8' })[0]).toEqual({ propertyPath: 'geoShapes', message: 'must be given as geoShapes[<shape>][<point>][0|1]=<lon|lat>' });
    expect(violationsOf({ geoShapes: ['2.3'] })[0]?.propertyPath).toBe('geoShapes[0]');
  });
});

describe('parsePropertyCriteria: expression, the other name of expressions', () => {
  const groups = [[{ word: 'jardin', options: { strict: 'true' } }]];

  it('reads expression as expressions, naming its own items in violations', () => {
    expect(accepted({ expression: groups }).criteria.expressions).toEqual(accepted({ expressions: groups }).criteria.expressions);
    expect(accepted({ expression: groups }).ignored).toEqual([]);
    expect(pathsOf({ expression: [[{ options: { strict: 'true' } }]] })).toEqual(['expression[0][0][word]']);
  });

  it('refuses both names at once, naming both', () => {
    expect(pathsOf({ expression: groups, expressions: groups })).toEqual(['expression', 'expressions']);
  });

  it(`limits expression to ${MAX_EXPRESSION_WORDS} words as it limits expressions`, () => {
    const words = Array.from({ length: MAX_EXPRESSION_WORDS + 1 }, (_, i) => ({ word: `mot${i}` }));
    expect(pathsOf({ expression: [words] })).toEqual(['expression']);
  });
});

describe('parsePropertyCriteria: size limits, refused before any work', () => {
  const ring = (points: number) => [...Array.from({ length: points - 1 }, (_, i) => [String(i / 1000), '45']), ['0', '45']];

  it(`refuses more than ${MAX_SHAPE_POINTS} shape points in total`, () => {
    const violations = violationsOf({ geoShapes: [ring(501), ring(500)], budgetMin: 'not checked' });
    expect(violations).toEqual([{ propertyPath: 'geoShapes', message: expect.stringContaining(`at most ${MAX_SHAPE_POINTS} points`) }]);
  });

  it(`accepts exactly ${MAX_SHAPE_POINTS} shape points`, () => {
    expect(accepted({ geoShapes: [ring(500), ring(500)] }).criteria.geoShapes).toHaveLength(2);
  });

  it(`refuses more than ${MAX_EXPRESSION_WORDS} expression words in total`, () => {
    const group = Array.from({ length: 51 }, () => ({ word: 'cave' }));
    expect(pathsOf({ expressions: [group, group] })).toEqual(['expressions']);
  });

  it(`refuses more than ${MAX_ARRAY_ITEMS} items in a list`, () => {
    const cities = Array.from({ length: MAX_ARRAY_ITEMS + 1 }, (_, i) => `/cities/${i + 1}`);
    expect(violationsOf({ includedCities: cities, page: 'not checked' })).toEqual([
      { propertyPath: 'includedCities', message: `must have at most ${MAX_ARRAY_ITEMS} items` },
    ]);
  });
});

describe('parsePropertyCriteria: unknown parameters', () => {
  it('ignores them and names them, top-level and order keys alike', () => {
    const { ignored, criteria } = accepted({ colour: 'blue', hidePropertyContact: 'true', order: { colour: 'asc', price: 'asc' } });
    expect(ignored).toEqual(['colour', 'hidePropertyContact', 'order[colour]']);
    expect(criteria.order).toEqual([{ field: 'price', direction: 'asc' }]);
  });

  it('ignores an unknown parameter however malformed its value', () => {
    expect(accepted({ aggregationInterval: 'fortnight' }).ignored).toEqual(['aggregationInterval']);
  });
});

describe('parsePropertyCriteria: price_per_meter endpoint', () => {
  const pricePerMeter: ParseCriteriaOptions = { endpoint: 'price_per_meter' };

  it('defaults itemsPerPage to 30 and aggregationInterval to month', () => {
    expect(accepted({}, pricePerMeter).criteria).toMatchObject({ itemsPerPage: 30, aggregationInterval: 'month' });
    expect(accepted({ aggregationInterval: 'year' }, pricePerMeter).criteria.aggregationInterval).toBe('year');
    expect(pathsOf({ aggregationInterval: 'week' }, pricePerMeter)).toEqual(['aggregationInterval']);
  });

  it('types its integer bounds and radius as integers, leaving the others decimal', () => {
    expect(pathsOf({ budgetMin: '1.5', surfaceMax: '40.5', lat: '45', lon: '4', radius: '2.5' }, pricePerMeter)).toEqual([
      'budgetMin',
      'radius',
      'surfaceMax',
    ]);
    expect(accepted({ priceExcludingFeesMin: '1.5', landSurfaceMax: '10.5' }, pricePerMeter).criteria.priceExcludingFees).toEqual({ min: 1.5 });
  });

  it('ignores the parameters it does not have', () => {
    const { ignored, criteria } = accepted(
      {
        includedSites: 'a',
        excludedSites: 'b',
        fromExpiredAt: 'x',
        toExpiredAt: 'y',
        order: { price: 'asc', surface: 'asc', pricePerMeter: 'asc', updatedAt: 'asc' },
      },
      pricePerMeter,
    );
    expect(ignored).toEqual(['includedSites', 'excludedSites', 'fromExpiredAt', 'toExpiredAt', 'order[price]', 'order[surface]', 'order[pricePerMeter]']);
    expect(criteria.order).toEqual([{ field: 'updatedAt', direction: 'asc' }]);
  });

  it('reads withLocation, geoAccuracy, geoShapes and the advert price bounds, as the collection does', () => {
    const { ignored, criteria } = accepted(
      { withLocation: 'true', geoAccuracy: ['1'], geoShapes: [SQUARE], advertPriceMin: '100000', advertPriceMax: '250000' },
      pricePerMeter,
    );
    expect(ignored).toEqual([]);
    expect(criteria).toMatchObject({ withLocation: true, geoAccuracy: [1], advertPrice: { min: 100_000, max: 250_000 } });
    expect(criteria.geoShapes).toHaveLength(1);
    expect(pathsOf({ geoShapes: 'not a shape', advertPriceMin: '1.5' }, pricePerMeter)).toEqual(['advertPriceMin', 'geoShapes']);
  });

  it('types expired as a plain boolean', () => {
    expect(pathsOf({ expired: 'null' }, pricePerMeter)).toEqual(['expired']);
    expect(accepted({ expired: 'true' }, pricePerMeter).criteria.expired).toBe(true);
  });
});

describe('parsePropertyCriteria: similar endpoint', () => {
  it('reads the advert price bounds', () => {
    expect(accepted({ advertPriceMin: '100000', advertPriceMax: '250000.5' }, { endpoint: 'similar' }).criteria.advertPrice).toEqual({ min: 100_000, max: 250_000.5 });
    expect(pathsOf({ advertPriceMin: '3', advertPriceMax: '2' }, { endpoint: 'similar' })).toEqual(['advertPriceMax', 'advertPriceMin']);
  });

  it('reads only paging, order, fromDate and the advert price bounds', () => {
    const { criteria, ignored } = accepted(
      { page: '2', itemsPerPage: '40', order: { price: 'asc' }, fromDate: '2026-01-01', budgetMin: '1', toDate: 'x' },
      { endpoint: 'similar' },
    );
    expect(criteria).toMatchObject({ page: 2, itemsPerPage: 30, order: [{ field: 'price', direction: 'asc' }] });
    expect(criteria.date).toEqual({ from: paris('2026-01-01T00:00:00+01:00') });
    expect(criteria.budget).toEqual({});
    expect(ignored).toEqual(['budgetMin', 'toDate']);
  });

  it('defaults itemsPerPage to 10', () => {
    expect(accepted({}, { endpoint: 'similar' }).criteria.itemsPerPage).toBe(10);
  });
});

describe('parsePropertyCriteria: reporting', () => {
  it('reports every bad parameter at once', () => {
    expect(pathsOf({ page: '0', budgetMin: 'x', propertyTypes: '8', radius: '2', geoShapes: [[['1', '2']]] })).toEqual([
      'budgetMin',
      'geoShapes[0]',
      'page',
      'propertyTypes',
      'radius',
    ]);
  });
});
