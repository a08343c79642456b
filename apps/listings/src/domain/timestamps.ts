/**
 * Time and number helpers shared by the listings domain.
 *
 * Every timestamp stored in advert state and events uses one canonical form,
 * `YYYY-MM-DDTHH:mm:ss+00:00`: it is the form PropertyDocument publishes, and because it is fixed
 * width and always UTC, two timestamps compare correctly as strings. That keeps `decide` and
 * `evolve` free of date parsing on the ingestion hot path.
 */

/** Canonical UTC timestamp (seconds precision) of an instant. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '+00:00';
}

/**
 * Canonical form of an ISO 8601 date-time with any offset. Sub-second precision is dropped so
 * that a crawler resending the same second with different milliseconds is not seen as newer.
 */
export function toUtcTimestamp(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`Not an ISO 8601 date-time: ${iso}`);
  return formatUtc(ms);
}

/** Rounds half away from zero to 2 decimals, so +0.005 and -0.005 round symmetrically. */
export function round2(value: number): number {
  const rounded = Math.round((Math.abs(value) + Number.EPSILON) * 100) / 100;
  // Avoid -0, which JSON serialises as 0 but Object.is and test matchers do not.
  return rounded === 0 ? 0 : Math.sign(value) * rounded;
}

/** Relative change in percent, rounded to 2 decimals; negative for a decrease. */
export function percentVariation(oldValue: number, newValue: number): number {
  if (oldValue === 0) return 0;
  return round2(((newValue - oldValue) / oldValue) * 100);
}
