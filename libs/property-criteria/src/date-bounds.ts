/**
 * Date parameters (`fromDate`, `toUpdatedAt`, `eventPriceVariationFromCreatedAt`…) to instants.
 *
 * Accepted forms: `YYYY-MM-DD`, `YYYY-MM-DD hh:mm[:ss]` and ISO 8601 `YYYY-MM-DDThh:mm[:ss[.sss]]`,
 * each optionally followed by `Z` or an offset (`+01:00`, `+0100`). Without an offset the time is
 * Europe/Paris local time. A bare date used as an upper bound (`to…`) covers that whole day, which
 * is what "to 2026-03-01" means to a person; as a lower bound it starts at local midnight.
 */
import { parisWallTimeToEpochMs } from '@immo/contracts';
import type { ValueResult } from './query-values';

export type BoundSide = 'from' | 'to';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+\- ])(\d{2}):?(\d{2}))?)?$/i;

const FORMS = 'YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or an ISO 8601 date-time';

export function parseDateBound(raw: unknown, side: BoundSide): ValueResult<number> {
  if (typeof raw !== 'string') return { ok: false, message: `must be a date (${FORMS})` };
  const match = DATE_TIME.exec(raw.trim());
  if (!match) return { ok: false, message: `must be a date (${FORMS})` };
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  const millisecond = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);

  // Date.UTC reads years below 100 as 19xx; no listing date is that old anyway.
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: 'is not a calendar date' };
  }
  if (hour > 23 || minute > 59 || second > 59) return { ok: false, message: 'is not a time of day' };

  const wallTime = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  if (h === undefined) {
    // Paris changes offset at 02:00/03:00, so local midnight always exists and is unambiguous.
    if (side === 'from') return { ok: true, value: parisWallTimeToEpochMs(wallTime) };
    const nextDay = Date.UTC(year, month - 1, day + 1);
    return { ok: true, value: parisWallTimeToEpochMs(nextDay) - 1 };
  }
  if (zulu !== undefined) return { ok: true, value: wallTime };
  if (sign !== undefined) {
    if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return { ok: false, message: 'has an invalid UTC offset' };
    // An unencoded "+" in a query string is decoded as a space, so "10:00:00 01:00" means +01:00.
    const direction = sign === '-' ? -1 : 1;
    const offsetMs = direction * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
    return { ok: true, value: wallTime - offsetMs };
  }
  return { ok: true, value: parisWallTimeToEpochMs(wallTime) };
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
