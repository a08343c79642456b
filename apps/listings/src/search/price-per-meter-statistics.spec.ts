import { pricePerMeterStatistics } from './price-per-meter-statistics';
import type { IndexedProperty } from './property-search-index';

function property(pricePerMeter: number | null, createdAt: string): IndexedProperty {
  return {
    uuid: `p-${pricePerMeter}-${createdAt}`,
    transactionType: 0,
    propertyType: 0,
    price: null,
    pricePerMeter,
    surface: null,
    landSurface: null,
    room: null,
    bedroom: null,
    createdAtMs: Date.parse(createdAt),
    updatedAtMs: null,
    location: null,
    cityId: null,
    inseeCode: null,
    departmentId: null,
  };
}

describe('pricePerMeterStatistics', () => {
  it('follows the original definitions: mean, median, means of the mean with the extremes, monthly means', () => {
    const stats = pricePerMeterStatistics(
      [property(3000, '2026-01-10T10:00:00Z'), property(5000, '2026-01-20T10:00:00Z'), property(4000, '2026-02-03T10:00:00Z'), property(null, '2026-02-03T10:00:00Z')],
      'month',
    );
    expect(stats).toEqual({ average: 4000, median: 4000, average_min: 3500, average_max: 4500, series: { '2026-01': 4000, '2026-02': 4000 } });
  });

  it('takes the median of an even count as the mean of the middle two', () => {
    expect(pricePerMeterStatistics([1000, 2000, 3000, 10_000].map((v) => property(v, '2026-03-01T12:00:00Z')), 'month').median).toBe(2500);
  });

  it('keys months and years in Paris time (a property created on 31 December at 23:30 UTC counts in January)', () => {
    const late = property(2000, '2025-12-31T23:30:00Z');
    expect(Object.keys(pricePerMeterStatistics([late], 'month').series)).toEqual(['2026-01']);
    expect(Object.keys(pricePerMeterStatistics([late], 'year').series)).toEqual(['2026']);
    const summer = property(2000, '2026-06-30T22:30:00Z');
    expect(Object.keys(pricePerMeterStatistics([summer], 'month').series)).toEqual(['2026-07']);
  });

  it('answers nulls and an empty series when nothing matches or nothing has a price per m²', () => {
    const empty = { average: null, average_min: null, average_max: null, median: null, series: {} };
    expect(pricePerMeterStatistics([], 'month')).toEqual(empty);
    expect(pricePerMeterStatistics([property(null, '2026-01-01T00:00:00Z')], 'year')).toEqual(empty);
  });
});
