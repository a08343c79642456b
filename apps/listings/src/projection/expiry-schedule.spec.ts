import fc from 'fast-check';
import { ExpirySchedule } from './expiry-schedule';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-04-01T00:00:00Z');

type Op = { kind: 'set'; id: string; atMs: number } | { kind: 'delete'; id: string };

const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
/** Instants within a few hours of T0, hour boundaries and their neighbours included, and NaN. */
const instant = fc.oneof(
  fc.integer({ min: T0 - 3 * HOUR, max: T0 + 3 * HOUR }),
  fc.integer({ min: -3, max: 3 }).chain((h) => fc.constantFrom(T0 + h * HOUR - 1, T0 + h * HOUR, T0 + h * HOUR + 1)),
  fc.constant(Number.NaN),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id, atMs: instant }),
  fc.record({ kind: fc.constant('delete' as const), id }),
);

describe('ExpirySchedule', () => {
  it('finds exactly the items whose instant is at or before now, whatever was set, moved and deleted before', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), instant, (ops, nowMs) => {
        const schedule = new ExpirySchedule<string>();
        const model = new Map<string, { item: string; atMs: number }>();
        ops.forEach((step, i) => {
          if (step.kind === 'set') {
            const item = `${step.id}#${i}`;
            schedule.set(step.id, item, step.atMs);
            model.set(step.id, { item, atMs: step.atMs });
          } else {
            schedule.delete(step.id);
            model.delete(step.id);
          }
        });
        const expected = [...model.values()].filter(({ atMs }) => atMs <= nowMs).map(({ item }) => item);
        expect(schedule.due(nowMs).sort()).toEqual(expected.sort());
        expect(schedule.size).toBe(model.size);
      }),
    );
  });

  it('is due at its instant to the millisecond, not a millisecond before, within the hour that holds it', () => {
    const schedule = new ExpirySchedule<string>();
    schedule.set('a', 'advert a', T0 + 30 * 60_000);
    expect(schedule.due(T0 + 30 * 60_000 - 1)).toEqual([]);
    expect(schedule.due(T0 + 30 * 60_000)).toEqual(['advert a']);
    expect(schedule.due(T0 + 5 * HOUR)).toEqual(['advert a']);
  });

  it('takes the latest item and instant of an id: moved later it is no longer due, moved earlier it is', () => {
    const schedule = new ExpirySchedule<string>();
    schedule.set('a', 'first', T0);
    schedule.set('a', 'postponed', T0 + 2 * HOUR);
    expect(schedule.due(T0 + HOUR)).toEqual([]);
    schedule.set('a', 'brought forward', T0 - HOUR);
    expect(schedule.due(T0)).toEqual(['brought forward']);
    expect(schedule.size).toBe(1);
  });

  it('never finds an item whose instant is not a number (an unparsable date), nor a deleted one', () => {
    const schedule = new ExpirySchedule<string>();
    schedule.set('a', 'no date', Number.NaN);
    schedule.set('b', 'withdrawn', T0);
    schedule.delete('b');
    expect(schedule.due(Number.MAX_SAFE_INTEGER)).toEqual([]);
    schedule.clear();
    expect(schedule.size).toBe(0);
  });
});
