import { parseDateBound } from './date-bounds';

const valueOf = (raw: unknown, side: 'from' | 'to' = 'from'): number => {
  const result = parseDateBound(raw, side);
  if (!result.ok) throw new Error(result.message);
  return result.value;
};

describe('date bounds', () => {
  it('reads the three accepted forms', () => {
    expect(valueOf('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00+01:00'));
    expect(valueOf('2026-03-01 10:15:30')).toBe(Date.parse('2026-03-01T10:15:30+01:00'));
    expect(valueOf('2026-03-01T10:15:30+00:00')).toBe(Date.UTC(2026, 2, 1, 10, 15, 30));
    expect(valueOf('2026-03-01T10:15:30.5Z')).toBe(Date.UTC(2026, 2, 1, 10, 15, 30, 500));
    expect(valueOf('2026-03-01T10:15:30-0300')).toBe(Date.UTC(2026, 2, 1, 13, 15, 30));
  });

  it('ends a bare upper-bound date at the last millisecond of that Paris day', () => {
    expect(valueOf('2026-03-01', 'to')).toBe(Date.parse('2026-03-02T00:00:00+01:00') - 1);
    expect(valueOf('2026-06-30', 'to')).toBe(Date.parse('2026-07-01T00:00:00+02:00') - 1);
  });

  it('keeps a date-time upper bound as given', () => {
    expect(valueOf('2026-03-01 10:00:00', 'to')).toBe(Date.parse('2026-03-01T10:00:00+01:00'));
  });

  it('reads a date before 1911 in Paris mean time (9 min 21 s ahead of UTC) instead of failing', () => {
    expect(valueOf('1900-01-01')).toBe(Date.UTC(1900, 0, 1) - (9 * 60 + 21) * 1000);
  });

  it('reads a time in the skipped spring hour one hour later', () => {
    expect(valueOf('2026-03-29 02:30:00')).toBe(Date.parse('2026-03-29T03:30:00+02:00'));
  });

  it.each(['2026-02-29', '2026-13-01', '2026-01-01 24:00:00', '2026-01-01T10:61', '2026-1-1', '0050-01-01', '2026-01-01T10:00:00+25:00', 20260101])(
    'refuses %p',
    (raw) => {
      expect(parseDateBound(raw, 'from').ok).toBe(false);
    },
  );

  it('accepts 29 February in a leap year', () => {
    expect(valueOf('2028-02-29')).toBe(Date.parse('2028-02-29T00:00:00+01:00'));
  });
});
