import { KeyedSerializer } from './keyed-serializer';

describe('KeyedSerializer', () => {
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it('runs tasks of one key in order, never overlapping', async () => {
    const serializer = new KeyedSerializer();
    const log: string[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        serializer.run('bucket', async () => {
          log.push(`start ${n}`);
          await tick();
          log.push(`end ${n}`);
        }),
      ),
    );
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs different keys concurrently and survives a failing task', async () => {
    const serializer = new KeyedSerializer();
    let inFlight = 0;
    let peak = 0;
    const task = async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await tick();
      inFlight--;
    };
    const failing = serializer.run('a', async () => {
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    await Promise.all([serializer.run('a', task), serializer.run('b', task)]);
    expect(peak).toBe(2);
  });
});
