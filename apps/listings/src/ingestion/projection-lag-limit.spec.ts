import { ProjectionLagError, ProjectionLagLimit } from './projection-lag-limit';

/** A projection whose committed position the test moves by hand. */
function fakeProjection() {
  let committed = 0;
  const waiters: { position: number; resolve: () => void }[] = [];
  return {
    waitFor(position: number): Promise<void> {
      if (committed >= position) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ position, resolve }));
    },
    commit(position: number) {
      committed = position;
      for (const waiter of waiters.splice(0)) {
        if (committed >= waiter.position) waiter.resolve();
        else waiters.push(waiter);
      }
    },
  };
}

describe('ProjectionLagLimit', () => {
  afterEach(() => jest.useRealTimers());

  const settled = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('admits at once while fewer than maxAhead appends are unprojected', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(3, (p) => projection.waitFor(p), 1000);
    for (const position of [10, 20]) (await limit.admit()).appended(position);
    await expect(limit.admit()).resolves.toMatchObject({ appended: expect.any(Function) });
  });

  it('holds the next append until an earlier one is projected', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(2, (p) => projection.waitFor(p), 10_000);
    (await limit.admit()).appended(10);
    (await limit.admit()).appended(20);
    let admitted = false;
    const pending = limit.admit().then((place) => ((admitted = true), place));
    await settled();
    expect(admitted).toBe(false);
    projection.commit(9);
    await settled();
    expect(admitted).toBe(false);
    projection.commit(10);
    (await pending).appended(30);
    expect(admitted).toBe(true);
    // 20 and 30 are unprojected: the next waits for 20.
    const next = limit.admit();
    projection.commit(20);
    await expect(next).resolves.toBeDefined();
  });

  it('counts an admitted append before it lands: concurrent admissions never exceed maxAhead', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(4, (p) => projection.waitFor(p), 10_000);
    // Six appends asked for at once (six grouping buckets), none landed yet.
    let admitted = 0;
    const asks = Array.from({ length: 6 }, () => limit.admit().then((place) => (admitted++, place)));
    await settled();
    expect(admitted).toBe(4);
    const first = await asks[0];
    first?.abandoned();
    await settled();
    expect(admitted).toBe(5);
    // Abandoning twice gives back one place only.
    first?.abandoned();
    await settled();
    expect(admitted).toBe(5);
  });

  it('serves waiters first come, first served: a newcomer does not take a place handed over', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(1, (p) => projection.waitFor(p), 10_000);
    const place = await limit.admit();
    const order: string[] = [];
    const waiting = limit.admit().then((p) => (order.push('waiting'), p));
    place.abandoned();
    const newcomer = limit.admit().then((p) => (order.push('newcomer'), p));
    (await waiting).abandoned();
    await newcomer;
    expect(order).toEqual(['waiting', 'newcomer']);
  });

  it('answers "retry later" when the projection does not move for the whole wait, and the waiter leaves the queue', async () => {
    jest.useFakeTimers();
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(1, (p) => projection.waitFor(p), 5000);
    (await limit.admit()).appended(10);
    const admitted = limit.admit();
    jest.advanceTimersByTime(5000);
    await expect(admitted).rejects.toBeInstanceOf(ProjectionLagError);
    await expect(admitted).rejects.toThrow(/behind/);
    // The place freed by the projection goes to the next caller, not to the one that gave up.
    projection.commit(10);
    await jest.advanceTimersByTimeAsync(0);
    await expect(limit.admit()).resolves.toBeDefined();
  });

  it("gives up after the caller's own time when that is shorter than its wait", async () => {
    jest.useFakeTimers();
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(1, (p) => projection.waitFor(p), 5000);
    (await limit.admit()).appended(10);
    let settledAt = false;
    const admitted = limit.admit(200).finally(() => (settledAt = true));
    admitted.catch(() => undefined);
    await jest.advanceTimersByTimeAsync(199);
    expect(settledAt).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await expect(admitted).rejects.toBeInstanceOf(ProjectionLagError);
  });
});
