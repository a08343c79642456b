import { parisOffsetMs, parisTimestamp, parisTimestampOrNull, parisWallTimeToEpochMs } from './paris-time';

const HOUR = 3_600_000;

describe('Europe/Paris offsets', () => {
  it('is one hour ahead of UTC in winter and two in summer', () => {
    expect(parisOffsetMs(Date.UTC(2026, 0, 15, 12))).toBe(HOUR);
    expect(parisOffsetMs(Date.UTC(2026, 6, 15, 12))).toBe(2 * HOUR);
  });

  it('changes at 01:00 UTC on the last Sundays of March and October', () => {
    expect(parisOffsetMs(Date.UTC(2026, 2, 29, 0, 59, 59))).toBe(HOUR);
    expect(parisOffsetMs(Date.UTC(2026, 2, 29, 1))).toBe(2 * HOUR);
    expect(parisOffsetMs(Date.UTC(2026, 9, 25, 0, 59, 59))).toBe(2 * HOUR);
    expect(parisOffsetMs(Date.UTC(2026, 9, 25, 1))).toBe(HOUR);
  });
});

describe('Paris wall time to an instant', () => {
  it('reads ordinary winter and summer times', () => {
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 0, 15, 12))).toBe(Date.parse('2026-01-15T12:00:00+01:00'));
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 6, 15, 12))).toBe(Date.parse('2026-07-15T12:00:00+02:00'));
  });

  it('reads the times just around the spring change', () => {
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 2, 29, 1, 59, 59))).toBe(Date.parse('2026-03-29T01:59:59+01:00'));
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 2, 29, 3))).toBe(Date.parse('2026-03-29T03:00:00+02:00'));
  });

  it('moves a skipped spring time one hour later on the clock', () => {
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 2, 29, 2, 30))).toBe(Date.parse('2026-03-29T03:30:00+02:00'));
  });

  it('takes the earlier of the two instants of a repeated autumn time', () => {
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 9, 25, 2, 30))).toBe(Date.parse('2026-10-25T02:30:00+02:00'));
    expect(parisWallTimeToEpochMs(Date.UTC(2026, 9, 25, 3))).toBe(Date.parse('2026-10-25T03:00:00+01:00'));
  });
});

describe('Paris timestamps (what responses and payloads show)', () => {
  it('writes a summer instant with +02:00 and a winter one with +01:00', () => {
    expect(parisTimestamp('2026-07-01T12:03:00+00:00')).toBe('2026-07-01T14:03:00+02:00');
    expect(parisTimestamp('2026-01-15T08:00:00Z')).toBe('2026-01-15T09:00:00+01:00');
  });

  it('switches to summer time at 01:00 UTC on the last Sunday of March', () => {
    expect(parisTimestamp(Date.UTC(2026, 2, 29, 0, 59, 59))).toBe('2026-03-29T01:59:59+01:00');
    expect(parisTimestamp(Date.UTC(2026, 2, 29, 1))).toBe('2026-03-29T03:00:00+02:00');
  });

  it('switches back to winter time at 01:00 UTC on the last Sunday of October', () => {
    expect(parisTimestamp(Date.UTC(2026, 9, 25, 0, 59, 59))).toBe('2026-10-25T02:59:59+02:00');
    expect(parisTimestamp(Date.UTC(2026, 9, 25, 1))).toBe('2026-10-25T02:00:00+01:00');
  });

  it('tells the two passes of the repeated autumn hour apart by their offsets', () => {
    const first = parisTimestamp('2026-10-25T00:30:00Z');
    const second = parisTimestamp('2026-10-25T01:30:00Z');
    expect(first).toBe('2026-10-25T02:30:00+02:00');
    expect(second).toBe('2026-10-25T02:30:00+01:00');
    expect(Date.parse(second) - Date.parse(first)).toBe(HOUR);
  });

  it('reads any offset, drops sub-second digits and gives the same text when applied again', () => {
    expect(parisTimestamp('2026-07-01T17:03:00.987+05:00')).toBe('2026-07-01T14:03:00+02:00');
    expect(parisTimestamp('2026-07-01T14:03:00+02:00')).toBe('2026-07-01T14:03:00+02:00');
    expect(parisTimestamp(Date.parse('2026-12-31T23:30:00.5Z'))).toBe('2027-01-01T00:30:00+01:00');
  });

  it('keeps the instant it was given', () => {
    for (let ms = Date.UTC(2025, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 7 * HOUR + 1234_000) {
      expect(Date.parse(parisTimestamp(ms))).toBe(Math.floor(ms / 1000) * 1000);
    }
  });

  it('returns a text that is not a date-time as it is, and null as null', () => {
    expect(parisTimestamp('not a date')).toBe('not a date');
    expect(parisTimestampOrNull(null)).toBeNull();
    expect(parisTimestampOrNull('2026-07-01T12:03:00Z')).toBe('2026-07-01T14:03:00+02:00');
  });

  it('writes an instant of Paris mean time (before 1911) in UTC rather than with a seconds offset', () => {
    expect(parisOffsetMs(Date.UTC(1900, 0, 1))).toBe((9 * 60 + 21) * 1000);
    expect(parisTimestamp('1900-01-01T00:00:00Z')).toBe('1900-01-01T00:00:00+00:00');
  });
});

describe('Paris timestamps of stored times (converted by their hour)', () => {
  it('gives what parsing and formatting each would, around both changes of offset', () => {
    for (let ms = Date.UTC(2026, 2, 28, 20); ms < Date.UTC(2026, 2, 29, 6); ms += 17 * 60_000 + 7000) {
      const stored = new Date(ms).toISOString().slice(0, 19) + '+00:00';
      expect(parisTimestamp(stored)).toBe(parisTimestamp(ms));
    }
    expect(parisTimestamp('2026-10-25T00:59:59+00:00')).toBe('2026-10-25T02:59:59+02:00');
    expect(parisTimestamp('2026-10-25T01:00:00+00:00')).toBe('2026-10-25T02:00:00+01:00');
  });

  it('does not read a stored-looking text that is no time of day, nor one from before 1912', () => {
    expect(parisTimestamp('2026-07-01T12:99:00+00:00')).toBe('2026-07-01T12:99:00+00:00');
    expect(parisTimestamp('2026-13-01T12:00:00+00:00')).toBe('2026-13-01T12:00:00+00:00');
    expect(parisTimestamp('1900-01-01T00:00:00+00:00')).toBe('1900-01-01T00:00:00+00:00');
  });
});
