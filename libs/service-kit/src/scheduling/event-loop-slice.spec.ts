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

  it('answers at once within the budget, and one shared turn to every caller past it', async () => {
    const slice = new EventLoopSlice(1_000);
    expect(slice.yieldIfDue()).toBeUndefined();
    const spent = new EventLoopSlice(0);
    const first = spent.yieldIfDue();
    expect(first).toBeInstanceOf(Promise);
    expect(spent.yieldIfDue()).toBe(first);
    await first;
  });
});
