import { SerialBatches, SerialLoop } from './serial-loop';

/** A promise and the function that settles it, for passes that end when the test says so. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('SerialLoop', () => {
  it('runs one pass at a time, and kicks during a pass ask for exactly one more pass after it', async () => {
    const gates = [gate(), gate()];
    let running = 0;
    let mostAtOnce = 0;
    let passes = 0;
    const loop = new SerialLoop(async () => {
      const pass = passes++;
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await gates[pass]?.opened;
      running--;
    }, fail);
    loop.kick();
    loop.kick();
    loop.kick();
    loop.kick();
    expect(passes).toBe(1);
    gates[0]!.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(passes).toBe(2);
    gates[1]!.open();
    await loop.idle();
    expect(passes).toBe(2);
    expect(mostAtOnce).toBe(1);
    expect(loop.busy).toBe(false);
  });

  it('starts its first pass at once, within the kick', () => {
    let started = false;
    const loop = new SerialLoop(async () => {
      started = true;
    }, fail);
    loop.kick();
    expect(started).toBe(true);
  });

  it('hands a failed pass to onFailure, skips the pass asked for after it, and runs again on the next kick', async () => {
    const failures: unknown[] = [];
    let passes = 0;
    const loop = new SerialLoop(async () => {
      passes++;
      await Promise.resolve();
      if (passes === 1) throw new Error('commit failed');
    }, (error) => failures.push(error));
    loop.kick();
    loop.kick();
    await loop.idle();
    expect(passes).toBe(1);
    expect(failures).toEqual([new Error('commit failed')]);
    loop.kick();
    await loop.idle();
    expect(passes).toBe(2);
    expect(failures).toHaveLength(1);
  });

  it('survives a pass that throws before its first await', async () => {
    const failures: unknown[] = [];
    let passes = 0;
    const loop = new SerialLoop(
      () => {
        passes++;
        if (passes === 1) throw new Error('at once');
        return Promise.resolve();
      },
      (error) => failures.push(error),
    );
    loop.kick();
    await loop.idle();
    loop.kick();
    await loop.idle();
    expect([passes, failures]).toEqual([2, [new Error('at once')]]);
  });

  it('lets onFailure kick a new run, and idle waits for that run too', async () => {
    let passes = 0;
    const loop = new SerialLoop(
      async () => {
        passes++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (passes === 1) throw new Error('retry me');
      },
      () => loop.kick(),
    );
    loop.kick();
    await loop.idle();
    expect(passes).toBe(2);
  });
});

describe('SerialBatches', () => {
  it('hands items over in order, in batches of at most maxBatch, what arrives during a batch forming the next one', async () => {
    const batches: number[][] = [];
    const first = gate();
    const queue = new SerialBatches<number>(
      3,
      async (batch) => {
        batches.push(batch);
        if (batches.length === 1) await first.opened;
      },
      fail,
    );
    queue.push(1);
    for (let i = 2; i <= 8; i++) queue.push(i);
    expect(queue.backlog).toBe(7);
    first.open();
    await queue.idle();
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6, 7], [8]]);
    expect(queue.backlog).toBe(0);
  });

  it('drops the waiting items on clear, not the batch being handled', async () => {
    const handled: number[] = [];
    const first = gate();
    const queue = new SerialBatches<number>(
      10,
      async (batch) => {
        handled.push(...batch);
        await first.opened;
      },
      fail,
    );
    queue.push(1);
    queue.push(2);
    queue.push(3);
    queue.clear();
    queue.push(4);
    first.open();
    await queue.idle();
    expect(handled).toEqual([1, 4]);
  });

  it('hands a failed batch to onFailure and keeps the items behind it for the next push', async () => {
    const handled: number[][] = [];
    const failures: unknown[] = [];
    const queue = new SerialBatches<number>(
      1,
      async (batch) => {
        handled.push(batch);
        await Promise.resolve();
        if (batch[0] === 1) throw new Error('store refused');
      },
      (error) => failures.push(error),
    );
    queue.push(1);
    queue.push(2);
    await queue.idle();
    expect([handled, queue.backlog, failures.length]).toEqual([[[1]], 1, 1]);
    queue.push(3);
    await queue.idle();
    expect(handled).toEqual([[1], [2], [3]]);
  });
});

function fail(error: unknown): never {
  throw error;
}
