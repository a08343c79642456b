import { EventLoopSlice } from './event-loop-slice';

describe('EventLoopSlice', () => {
  it('lets a timer run during a long chain of resolved promises once the budget is spent', async () => {
    const slice = new EventLoopSlice(5);
    let timerFiredAfter: number | null = null;
    let iterations = 0;
    setTimeout(() => (timerFiredAfter = iterations), 0);
    const started = performance.now();
    // 60 ms of synchronous-looking async work, the shape of a projection over cached records.
    while (performance.now() - started < 60) {
      await Promise.resolve();
      iterations++;
      await slice.yieldIfDue();
    }
    expect(timerFiredAfter).not.toBeNull();
    expect(timerFiredAfter).toBeLessThan(iterations);
  });

  it('without yielding, the same chain starves the timer (what the slice is for)', async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    const started = performance.now();
    while (performance.now() - started < 30) await Promise.resolve();
    expect(fired).toBe(false);
  });

  it('answers at once within the budget, and a turn to every caller past it, in the order they came', async () => {
    const slice = new EventLoopSlice(1_000);
    expect(slice.yieldIfDue()).toBeUndefined();
    const spent = new EventLoopSlice(0);
    const resumed: string[] = [];
    const first = spent.yieldIfDue()?.then(() => resumed.push('first'));
    const second = spent.yieldIfDue()?.then(() => resumed.push('second'));
    expect(first).toBeInstanceOf(Promise);
    await Promise.all([first, second]);
    expect(resumed).toEqual(['first', 'second']);
  });

  it('resumes the loops that yielded a few at a time: many concurrent loops do not all run an item in the same turn', async () => {
    const slice = new EventLoopSlice(10);
    // A counter of event-loop turns: a timer re-armed on every turn of the loop.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const itemsPerTurn = new Map<number, number>();
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    // 20 loops of 2 ms items, the shape of concurrent appends resuming together.
    const loop = async () => {
      for (let item = 0; item < 3; item++) {
        await slice.yieldIfDue();
        busy(2);
        itemsPerTurn.set(turn, (itemsPerTurn.get(turn) ?? 0) + 1);
      }
    };
    busy(11); // the slice is spent: every loop's first call yields, as appends resumed together do
    await Promise.all(Array.from({ length: 20 }, loop));
    ticking = false;
    const counts = [...itemsPerTurn.values()];
    expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
    // 10 ms of budget holds five 2 ms items (one more may start just inside it); released all at
    // once, every loop would run an item in the first turn after the yield: 20.
    expect(Math.max(...counts)).toBeLessThanOrEqual(8);
  });
});
