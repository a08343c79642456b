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

  it('admits at once while fewer than maxAhead appends are unprojected', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(3, (p) => projection.waitFor(p), 1000);
    for (const position of [10, 20]) {
      await limit.admit();
      limit.appended(position);
    }
    await expect(limit.admit()).resolves.toBeUndefined();
  });

  it('holds the next append until the one maxAhead appends ago is projected', async () => {
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(2, (p) => projection.waitFor(p), 10_000);
    limit.appended(10);
    limit.appended(20);
    let admitted = false;
    const pending = limit.admit().then(() => (admitted = true));
    await Promise.resolve();
    expect(admitted).toBe(false);
    projection.commit(9);
    await Promise.resolve();
    expect(admitted).toBe(false);
    projection.commit(10);
    await pending;
    expect(admitted).toBe(true);
    // The ring moves on: the next wait is for 20, the oldest of the last two appends.
    limit.appended(30);
    const next = limit.admit();
    projection.commit(20);
    await expect(next).resolves.toBeUndefined();
  });

  it('answers "retry later" when the projection does not move for the whole wait', async () => {
    jest.useFakeTimers();
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(1, (p) => projection.waitFor(p), 5000);
    limit.appended(10);
    const admitted = limit.admit();
    jest.advanceTimersByTime(5000);
    await expect(admitted).rejects.toBeInstanceOf(ProjectionLagError);
    await expect(admitted).rejects.toThrow(/behind/);
  });

  it("gives up after the caller's own time when that is shorter than its wait", async () => {
    jest.useFakeTimers();
    const projection = fakeProjection();
    const limit = new ProjectionLagLimit(1, (p) => projection.waitFor(p), 5000);
    limit.appended(10);
    let settled = false;
    const admitted = limit.admit(200).finally(() => (settled = true));
    admitted.catch(() => undefined);
    await jest.advanceTimersByTimeAsync(199);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await expect(admitted).rejects.toBeInstanceOf(ProjectionLagError);
  });
});
