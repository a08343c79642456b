import { parisOffsetMs, parisWallTimeToEpochMs } from './paris-time';

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
