import { CpuWaitSampler, describeCpuWait, readSchedstat, summarizeCpuWait, type SchedSample } from './cpu-wait';

const sample = (atMs: number, runMs: number, waitMs: number): SchedSample => ({ atMs, runMs, waitMs });

describe('summarizeCpuWait', () => {
  it('totals run and wait over the span and finds the window that waited most', () => {
    const samples = [sample(0, 0, 0), sample(50, 40, 10), sample(100, 60, 40), sample(150, 70, 120), sample(200, 110, 130), sample(300, 200, 140)];
    const summary = summarizeCpuWait(samples, 100);
    expect(summary).toEqual({ spanMs: 300, runMs: 200, waitMs: 140, worstWindowWaitMs: 110, windowMs: 100 });
  });

  it('summarizes nothing as zeros', () => {
    expect(summarizeCpuWait([], 100)).toEqual({ spanMs: 0, runMs: 0, waitMs: 0, worstWindowWaitMs: 0, windowMs: 100 });
  });
});

describe('describeCpuWait', () => {
  it('gives the share of the busy time spent waiting and the worst window', () => {
    expect(describeCpuWait({ spanMs: 1000, runMs: 600, waitMs: 200, worstWindowWaitMs: 85.4, windowMs: 100 })).toBe(
      'main thread waited for a CPU 25% of the time it had work, up to 85 ms in 100 ms',
    );
  });

  it('says when nothing was measured', () => {
    expect(describeCpuWait(null)).toMatch(/not measured/);
  });
});

describe('CpuWaitSampler', () => {
  it('samples until stopped, through the reader it is given', async () => {
    let reads = 0;
    const sampler = new CpuWaitSampler(1, 100, 5, () => {
      reads++;
      return { runMs: reads * 4, waitMs: reads };
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const summary = sampler.stop();
    const readsAtStop = reads;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(reads).toBe(readsAtStop);
    expect(readsAtStop).toBeGreaterThan(3);
    expect(summary?.runMs).toBe((readsAtStop - 1) * 4);
    expect(summary?.waitMs).toBe(readsAtStop - 1);
  });

  it('gives null for a process it cannot read', () => {
    expect(new CpuWaitSampler(1, 100, 5, () => null).stop()).toBeNull();
  });

  it('reads this process from /proc, and nothing for a process that is gone', () => {
    const before = readSchedstat(process.pid);
    const until = Date.now() + 30;
    while (Date.now() < until);
    const after = readSchedstat(process.pid);
    expect(before).not.toBeNull();
    expect(after?.runMs).toBeGreaterThan(before?.runMs ?? Number.POSITIVE_INFINITY);
    expect(readSchedstat(2 ** 22 + 1)).toBeNull();
  });
});
