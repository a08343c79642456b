import { busyFor, LoopTurns, mostItemsInOneTurn } from './event-loop-turns';

describe('LoopTurns', () => {
  it('advances between turns of the event loop and stands still within one', async () => {
    const turns = new LoopTurns();
    const first = turns.current;
    busyFor(2);
    expect(turns.current).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(turns.current).toBeGreaterThan(first);
    turns.stop();
  });
});

describe('mostItemsInOneTurn', () => {
  it('finds the longest run of items noted in the same turn', () => {
    expect(mostItemsInOneTurn([1, 1, 2, 2, 2, 3])).toBe(3);
    expect(mostItemsInOneTurn([4, 4, 4, 4])).toBe(4);
    expect(mostItemsInOneTurn([1, 2, 3])).toBe(1);
  });

  it('is 0 when no item was noted', () => {
    expect(mostItemsInOneTurn([])).toBe(0);
  });
});
