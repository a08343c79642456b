import { busyFor, LoopTurns, mostItemsInOneTurn } from '@immo/testing';
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

  it('lets a loop asking after every item go on within the budget, even while other loops wait', async () => {
    const slice = new EventLoopSlice(30);
    busyFor(31);
    const answers: string[] = [];
    // Two loops yield; in the first one's turn the second still waits for its own.
    const first = slice.yieldIfDue()?.then(() => {
      answers.push(slice.yieldIfDue() === undefined ? 'yieldIfDue: go on' : 'yieldIfDue: wait');
      answers.push(slice.yieldIfSpent() === undefined ? 'yieldIfSpent: go on' : 'yieldIfSpent: wait');
    });
    const second = slice.yieldIfDue();
    await Promise.all([first, second]);
    expect(answers).toEqual(['yieldIfDue: wait', 'yieldIfSpent: go on']);
    // Past the budget it takes a turn too.
    busyFor(31);
    expect(slice.yieldIfSpent()).toBeInstanceOf(Promise);
  });

  it('bounds a turn by time when some items of a loop cost far more than the rest', async () => {
    const slice = new EventLoopSlice(10);
    const turns = new LoopTurns();
    const itemTurns: number[] = [];
    const slowTurns: number[] = [];
    // 64 items of 0.05 ms, of which eight in the middle take 8 ms (a collector step inside them):
    // asking every 32nd item, a turn ran all eight of them (64 ms).
    for (let item = 0; item < 64; item++) {
      const slow = item >= 28 && item < 36;
      busyFor(slow ? 8 : 0.05);
      itemTurns.push(turns.current);
      if (slow) slowTurns.push(turns.current);
      const due = slice.yieldIfSpent();
      if (due) await due;
    }
    turns.stop();
    expect(itemTurns).toHaveLength(64);
    // 10 ms of budget: at most two 8 ms items share a turn.
    expect(mostItemsInOneTurn(slowTurns)).toBeLessThanOrEqual(2);
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
    const turns = new LoopTurns();
    const itemTurns: number[] = [];
    // 20 loops of 2 ms items, the shape of concurrent appends resuming together.
    const loop = async () => {
      for (let item = 0; item < 3; item++) {
        await slice.yieldIfDue();
        busyFor(2);
        itemTurns.push(turns.current);
      }
    };
    busyFor(11); // the slice is spent: every loop's first call yields, as appends resumed together do
    await Promise.all(Array.from({ length: 20 }, loop));
    turns.stop();
    expect(itemTurns).toHaveLength(60);
    // 10 ms of budget holds five 2 ms items (one more may start just inside it); released all at
    // once, every loop would run an item in the first turn after the yield: 20.
    expect(mostItemsInOneTurn(itemTurns)).toBeLessThanOrEqual(8);
  });
});
