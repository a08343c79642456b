/**
 * Europe/Paris time, the time zone of the original service and of its callers.
 *
 * Times are stored in UTC (`YYYY-MM-DDTHH:mm:ss+00:00`, compared as strings on hot paths) and
 * shown in Paris time with its offset (`2026-07-01T14:03:00+02:00`, `+01:00` in winter) wherever
 * they leave the system: HTTP responses, webhook payloads, the live stream. Dates written without
 * an offset are read as Paris wall-clock time. The offset of Paris is looked up with
 * `Intl.DateTimeFormat`, which carries the IANA time-zone rules in Node's ICU data, so no
 * time-zone library is needed and past rule changes are honoured.
 */

export const SERVICE_TIME_ZONE = 'Europe/Paris';

const HOUR_MS = 3_600_000;
/**
 * Since 1912 every change of the Paris offset falls on a whole UTC hour (offsets are whole
 * hours), so one lookup serves a whole hour; before, Paris mean time had a 9 min 21 s offset.
 */
const WHOLE_HOUR_CHANGES_SINCE_MS = Date.UTC(1912, 0, 1);
/** About eleven years of hours, more than one process's times span; a full cache starts again empty. */
const MAX_CACHED_HOURS = 100_000;

// Building a formatter is costly; one is kept for the process.
let offsetFormatter: Intl.DateTimeFormat | undefined;
const offsetsByHour = new Map<number, number>();

function formatter(): Intl.DateTimeFormat {
  offsetFormatter ??= new Intl.DateTimeFormat('en-US', { timeZone: SERVICE_TIME_ZONE, timeZoneName: 'longOffset' });
  return offsetFormatter;
}

function lookUpOffsetMs(instantMs: number): number {
  const name = formatter()
    .formatToParts(new Date(instantMs))
    .find((part) => part.type === 'timeZoneName')?.value;
  // `longOffset` writes "GMT+02:00", "GMT+00:09:21" for Paris mean time, or plain "GMT" for zero.
  const match = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name ?? '');
  if (!match) throw new Error(`Unexpected time-zone name for ${SERVICE_TIME_ZONE}: ${String(name)}`);
  if (match[1] === undefined) return 0;
  const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0);
  return (match[1] === '-' ? -1 : 1) * seconds * 1000;
}

/** Offset of Paris from UTC at an instant, in milliseconds (+1 h in winter, +2 h in summer). */
export function parisOffsetMs(instantMs: number): number {
  if (instantMs < WHOLE_HOUR_CHANGES_SINCE_MS) return lookUpOffsetMs(instantMs);
  const hour = Math.floor(instantMs / HOUR_MS);
  let offset = offsetsByHour.get(hour);
  if (offset === undefined) {
    offset = lookUpOffsetMs(hour * HOUR_MS);
    if (offsetsByHour.size >= MAX_CACHED_HOURS) offsetsByHour.clear();
    offsetsByHour.set(hour, offset);
  }
  return offset;
}

/**
 * The instant at which Paris clocks show the given wall time, the wall time being written as if
 * it were UTC (`Date.UTC(y, m, d, h, min, s)`).
 *
 * Around a change of offset a wall time may have two instants (the repeated hour in October) or
 * none (the skipped hour in March). As `Temporal`'s "compatible" disambiguation does, the earlier
 * instant is taken for a repeated time, and a skipped time is read with the offset in force before
 * the jump, which lands one hour later on the clock (02:30 becomes 03:30 summer time).
 */
export function parisWallTimeToEpochMs(wallTimeAsUtcMs: number): number {
  // Offsets in force well before and well after: no two changes of offset are 12 h apart.
  const offsetBefore = parisOffsetMs(wallTimeAsUtcMs - 12 * HOUR_MS);
  const offsetAfter = parisOffsetMs(wallTimeAsUtcMs + 12 * HOUR_MS);
  const candidates = [wallTimeAsUtcMs - offsetBefore, wallTimeAsUtcMs - offsetAfter].filter(
    (instant) => instant + parisOffsetMs(instant) === wallTimeAsUtcMs,
  );
  if (candidates.length > 0) return Math.min(...candidates);
  return wallTimeAsUtcMs - offsetBefore;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** The form the stores keep (`formatUtc` in listings), whose minutes and seconds Paris shares. */
const STORED_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:[0-5]\d:[0-5]\d\+00:00$/;
/** Per UTC hour (`2026-07-01T12`): its Paris hour (`2026-07-01T14`) and offset (`+02:00`). */
const hourForms = new Map<string, { hour: string; offset: string } | null>();

/**
 * An instant as the API shows it: Paris wall-clock time to the second with the offset in force
 * (`2026-07-01T14:03:00+02:00`, `2026-01-15T09:00:00+01:00`). Takes epoch milliseconds or an ISO
 * 8601 date-time with any offset, so applying it twice changes nothing. A text that is not a
 * date-time is returned as it is: an output boundary never fails on a stored value. An instant
 * before 1912, when the Paris offset was not whole minutes, is written in UTC.
 */
export function parisTimestamp(instant: number | string): string {
  // Pages of documents carry hundreds of stored times: those are converted by their hour, the
  // offset being whole hours, at a fifth of the cost of parsing and formatting each.
  if (typeof instant === 'string' && STORED_UTC.test(instant)) {
    const form = hourFormOf(instant.slice(0, 13));
    if (form !== null) return `${form.hour}${instant.slice(13, 19)}${form.offset}`;
  }
  const ms = typeof instant === 'number' ? instant : Date.parse(instant);
  return Number.isNaN(ms) ? String(instant) : formatParisTime(ms);
}

function hourFormOf(utcHour: string): { hour: string; offset: string } | null {
  let form = hourForms.get(utcHour);
  if (form === undefined) {
    const ms = Date.parse(`${utcHour}:00:00Z`);
    const shown = Number.isNaN(ms) || parisOffsetMs(ms) % HOUR_MS !== 0 ? null : formatParisTime(ms);
    form = shown === null ? null : { hour: shown.slice(0, 13), offset: shown.slice(19) };
    if (hourForms.size >= MAX_CACHED_HOURS) hourForms.clear();
    hourForms.set(utcHour, form);
  }
  return form;
}

function formatParisTime(ms: number): string {
  const whole = Math.floor(ms / 1000) * 1000;
  let offset = parisOffsetMs(whole);
  if (offset % 60_000 !== 0) offset = 0;
  const minutes = Math.abs(offset) / 60_000;
  const sign = offset < 0 ? '-' : '+';
  return `${new Date(whole + offset).toISOString().slice(0, 19)}${sign}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`;
}

/** `parisTimestamp` of a time that may be unset. */
export function parisTimestampOrNull(instant: number | string | null): string | null {
  return instant === null ? null : parisTimestamp(instant);
}
