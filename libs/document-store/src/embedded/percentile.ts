/**
 * Percentiles with MongoDB 7 semantics. `approximate` (the only method MongoDB 7.0 accepts) and
 * `discrete` answer an actual input value at rank `ceil(n * p) - 1`, so the median of an even
 * count is the lower middle value; `continuous` interpolates linearly between neighbours.
 */

export type PercentileMethod = 'approximate' | 'discrete' | 'continuous';

export function isPercentileMethod(value: unknown): value is PercentileMethod {
  return value === 'approximate' || value === 'discrete' || value === 'continuous';
}

/** `sorted` must be ascending; answers null for an empty input like MongoDB does. */
export function percentileOfSorted(sorted: readonly number[], p: number, method: PercentileMethod): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  if (method === 'continuous') {
    const rank = p * (n - 1);
    const low = Math.floor(rank);
    const high = Math.ceil(rank);
    const lowValue = sorted[low] as number;
    const highValue = sorted[high] as number;
    return low === high ? lowValue : lowValue + (rank - low) * (highValue - lowValue);
  }
  const rank = p >= 1 ? n - 1 : Math.max(0, Math.ceil(n * p) - 1);
  return sorted[rank] as number;
}

/** Numbers only (MongoDB ignores other values), sorted numerically rather than as strings. */
export function sortedNumbers(values: readonly unknown[]): number[] {
  const numbers: number[] = [];
  for (const value of values) {
    if (typeof value === 'number' && !Number.isNaN(value)) numbers.push(value);
  }
  return numbers.sort((a, b) => a - b);
}
