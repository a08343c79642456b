import { procCpuTicks, waitUntilIdle } from './processes-idle';

describe('waitUntilIdle', () => {
  it('returns once a whole window is under the busy share', async () => {
    // 50 ticks (half a core over a 100 ms window) in each of the first three windows, then nothing.
    let ticks = 0;
    let reads = 0;
    const cpuTicksOf = () => {
      reads++;
      if (reads % 2 === 0 && reads <= 6) ticks += 5;
      return ticks;
    };
    const result = await waitUntilIdle([1], { windowMs: 100, busyShare: 0.1, timeoutMs: 5_000, cpuTicksOf });
    expect(result.idle).toBe(true);
    expect(reads).toBe(8);
    expect(result.lastBusyShare).toBe(0);
    expect(result.waitedMs).toBeGreaterThanOrEqual(350);
  });

  it('sums the processes and gives up at the timeout, saying so', async () => {
    const ticks = new Map([
      [1, 0],
      [2, 0],
    ]);
    const cpuTicksOf = (pid: number) => {
      // Each process alone stays under the share; together they do not.
      ticks.set(pid, (ticks.get(pid) ?? 0) + 1);
      return ticks.get(pid) ?? 0;
    };
    const result = await waitUntilIdle([1, 2], { windowMs: 50, busyShare: 0.3, timeoutMs: 200, ticksPerSecond: 100, cpuTicksOf });
    expect(result.idle).toBe(false);
    expect(result.waitedMs).toBeGreaterThanOrEqual(200);
    expect(result.lastBusyShare).toBeGreaterThan(0.3);
  });

  it('reads this process from /proc, and a process that is gone as 0', () => {
    const start = procCpuTicks(process.pid);
    const until = Date.now() + 60;
    while (Date.now() < until);
    expect(procCpuTicks(process.pid)).toBeGreaterThan(start);
    expect(procCpuTicks(2 ** 22 + 1)).toBe(0);
  });
});
