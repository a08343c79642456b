import { advertReadAhead } from './advert-read-ahead';

describe('advertReadAhead', () => {
  it('fetches the batch\'s adverts together and resolves once they are fetched', async () => {
    const asked: string[][] = [];
    let release = () => undefined as void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let done = false;
    const reading = advertReadAhead({
      prefetch: async (ids: readonly string[]) => {
        asked.push([...ids]);
        await slow;
      },
    })(['a1', 'a2', 'new']).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(asked).toEqual([['a1', 'a2', 'new']]);
    expect(done).toBe(false);
    release();
    await reading;
    expect(done).toBe(true);
  });
});
