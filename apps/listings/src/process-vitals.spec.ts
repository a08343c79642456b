import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ProcessVitals } from './process-vitals';

// `gc()` without starting Jest with --expose-gc: the flag is set, then read in a fresh context.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('ProcessVitals', () => {
  it('reports the longest garbage-collection pause and its kind, and forgets it on reset', async () => {
    const vitals = new ProcessVitals();
    try {
      collectGarbage();
      await settle(); // entries reach the observer asynchronously
      const afterCollection = vitals.read();
      expect(afterCollection.gcPauseMaxMs).toBeGreaterThan(0);
      expect(afterCollection.gcPauseMaxKind).toBe('major');

      vitals.reset();
      expect(vitals.read()).toMatchObject({ gcPauseMaxMs: 0, gcPauseMaxKind: null });
    } finally {
      vitals.close();
    }
  });

  it('reports memory and event-loop delay figures', () => {
    const vitals = new ProcessVitals();
    try {
      const read = vitals.read();
      expect(read.rssBytes).toBeGreaterThan(read.heapUsedBytes);
      expect(read.heapTotalBytes).toBeGreaterThanOrEqual(read.heapUsedBytes);
      expect(Number.isFinite(read.eventLoopDelayP99Ms)).toBe(true);
    } finally {
      vitals.close();
    }
  });

  it('reads a block of the event loop as the whole interval between two ticks: the block and a part of the 10 ms between ticks', async () => {
    const vitals = new ProcessVitals();
    try {
      await new Promise((resolve) => setTimeout(resolve, 30)); // a few idle ticks
      const started = performance.now();
      while (performance.now() - started < 60) {
        // the event loop is held for 60 ms
      }
      await new Promise((resolve) => setTimeout(resolve, 30)); // the tick after the block is recorded
      const read = vitals.read();
      expect(read.eventLoopDelayMaxMs).toBeGreaterThanOrEqual(60);
      // The block and up to 10 ms of the interval it fell in, plus whatever a busy test machine
      // adds (not bounded tightly here); a slip of unit would read a thousand times more.
      expect(read.eventLoopDelayMaxMs).toBeLessThan(1000);
    } finally {
      vitals.close();
    }
  });
});
