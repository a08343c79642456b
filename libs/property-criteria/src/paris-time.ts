/**
 * Europe/Paris wall-clock time to an instant, with daylight saving time handled.
 *
 * Dates without an offset are French local time (the service is French and so are its callers).
 * The offset of Paris is looked up with `Intl.DateTimeFormat`, which carries the IANA time-zone
 * rules in Node's ICU data, so no time-zone library is needed and past rule changes are honoured.
 */

const PARIS = 'Europe/Paris';
const HOUR_MS = 3_600_000;

// Building a formatter is costly; one is kept for the process.
let offsetFormatter: Intl.DateTimeFormat | undefined;

function formatter(): Intl.DateTimeFormat {
  offsetFormatter ??= new Intl.DateTimeFormat('en-US', { timeZone: PARIS, timeZoneName: 'longOffset' });
  return offsetFormatter;
}

/** Offset of Paris from UTC at an instant, in milliseconds (+1 h in winter, +2 h in summer). */
export function parisOffsetMs(instantMs: number): number {
  const name = formatter()
    .formatToParts(new Date(instantMs))
    .find((part) => part.type === 'timeZoneName')?.value;
  // `longOffset` writes "GMT+02:00", or plain "GMT" for a zero offset.
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name ?? '');
  if (!match) throw new Error(`Unexpected time-zone name for ${PARIS}: ${String(name)}`);
  if (match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return (match[1] === '-' ? -1 : 1) * minutes * 60_000;
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
