import { ExpirySweep } from './expiry-sweep';

describe('ExpirySweep', () => {
  it('runs one sweep at a time: a sweep asked for while one is under way joins it', async () => {
    const asked: string[][] = [];
    let finish: () => void = () => undefined;
    const sweep = new ExpirySweep(
      () => ['a', 'b'],
      async (ids) => {
        asked.push([...ids]);
        await new Promise<void>((resolve) => (finish = resolve));
      },
      () => undefined,
    );
    const first = sweep.run();
    const second = sweep.run();
    expect(asked).toEqual([['a', 'b']]);
    finish();
    await Promise.all([first, second]);

    const third = sweep.run();
    expect(asked).toHaveLength(2);
    finish();
    await third;
  });

  it('reports a failed sweep and runs the next one', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const expired: string[] = [];
    const sweep = new ExpirySweep(
      () => ['a'],
      async (ids) => {
        if (fail) throw new Error('store closing');
        expired.push(...ids);
      },
      (error) => errors.push(error),
    );
    await sweep.run();
    expect(errors).toEqual([new Error('store closing')]);
    fail = false;
    await sweep.run();
    expect(expired).toEqual(['a']);
  });
});
