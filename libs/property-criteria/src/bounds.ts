/**
 * Inclusive bound checks shared by every filter. A value that is missing (null, undefined, an
 * unparsable date) never satisfies a bound: "surface at least 50 m²" cannot be said of a property
 * whose surface is unknown. An empty range constrains nothing, so it accepts missing values too.
 */
import type { NumberRange, TimeRange } from './criteria';

export function isOpenRange(range: NumberRange): boolean {
  return range.min === undefined && range.max === undefined;
}

export function isOpenTimeRange(range: TimeRange): boolean {
  return range.from === undefined && range.to === undefined;
}

export function withinRange(value: number | null | undefined, range: NumberRange): boolean {
  if (isOpenRange(range)) return true;
  if (value === null || value === undefined || Number.isNaN(value)) return false;
  return (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max);
}

/** `timestamp` is an ISO 8601 date-time as documents carry them. */
export function withinTimeRange(timestamp: string | null | undefined, range: TimeRange): boolean {
  if (isOpenTimeRange(range)) return true;
  return withinRange(timestamp === null || timestamp === undefined ? null : Date.parse(timestamp), { min: range.from, max: range.to });
}
