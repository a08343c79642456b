import type { AggregationInterval } from '@immo/property-criteria';
import { parisOffsetMs } from '@immo/contracts';
import type { IndexedProperty } from './property-search-index';

/** The spec's "Price per meter statistic" (snake-case keys as the original service writes them). */
export interface PricePerMeterStatistic {
  average: number | null;
  average_min: number | null;
  average_max: number | null;
  median: number | null;
  /** Mean price per m² by month (`YYYY-MM`) or year (`YYYY`) of the property's creation, Paris time. */
  series: Record<string, number>;
}

const HOUR_MS = 3_600_000;

/** Period keys by UTC hour: the Paris offset only changes on the hour, and matches share hours. */
class PeriodKeys {
  private readonly byHour = new Map<number, string>();

  constructor(private readonly interval: AggregationInterval) {}

  of(instantMs: number): string {
    const hour = Math.floor(instantMs / HOUR_MS);
    let key = this.byHour.get(hour);
    if (key === undefined) {
      const paris = new Date(hour * HOUR_MS + parisOffsetMs(hour * HOUR_MS));
      const year = String(paris.getUTCFullYear());
      key = this.interval === 'year' ? year : `${year}-${String(paris.getUTCMonth() + 1).padStart(2, '0')}`;
      this.byHour.set(hour, key);
    }
    return key;
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * The original service's definitions, over the matching properties that have a price per m²:
 * `average` their mean, `median` their median, `average_min` the mean of `average` and the lowest
 * value, `average_max` the mean of `average` and the highest; each series value is the mean of its
 * period. No match (or none with a price per m²) gives nulls and an empty series. Values are
 * rounded to the cent.
 */
export function pricePerMeterStatistics(properties: Iterable<IndexedProperty>, interval: AggregationInterval): PricePerMeterStatistic {
  const values: number[] = [];
  const periods = new Map<string, { sum: number; count: number }>();
  const keys = new PeriodKeys(interval);
  for (const property of properties) {
    const value = property.pricePerMeter;
    if (value === null || !Number.isFinite(value)) continue;
    values.push(value);
    if (property.createdAtMs === null) continue;
    const key = keys.of(property.createdAtMs);
    const period = periods.get(key) ?? { sum: 0, count: 0 };
    period.sum += value;
    period.count++;
    periods.set(key, period);
  }
  if (values.length === 0) return { average: null, average_min: null, average_max: null, median: null, series: {} };
  const sorted = Float64Array.from(values).sort();
  const average = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  const series: Record<string, number> = {};
  for (const key of [...periods.keys()].sort()) {
    const period = periods.get(key) as { sum: number; count: number };
    series[key] = round2(period.sum / period.count);
  }
  return {
    average: round2(average),
    average_min: round2((average + (sorted[0] as number)) / 2),
    average_max: round2((average + (sorted[sorted.length - 1] as number)) / 2),
    median: round2(median),
    series,
  };
}
