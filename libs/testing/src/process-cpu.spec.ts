import { cpuPerItem, describeCpuPerItem, readProcessCpuMs, StackCpuMeter } from './process-cpu';

/** /proc is Linux's: elsewhere the reader answers null and there is nothing to compare. */
const linux = process.platform === 'linux';

/**
 * Works until Node's own account says this process used `ms` of CPU (at most 10 s of wall time):
 * a loop timed by the wall clock got 30 ms of CPU in 120 ms while the rest of the suite ran.
 */
function busyForCpu(ms: number): void {
  const start = process.cpuUsage();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms || Date.now() > deadline) return;
    for (let i = 0; i < 10_000; i++) Math.sqrt(Math.random());
  }
}

describe('readProcessCpuMs', () => {
  (linux ? it : it.skip)('reads this process\'s CPU time, which grows while it works', () => {
    const before = readProcessCpuMs(process.pid);
    busyForCpu(120);
    const after = readProcessCpuMs(process.pid);
    expect(before).not.toBeNull();
    // Clock ticks of 10 ms, read before and after: 120 ms of work reads at least 100.
    expect(after! - before!).toBeGreaterThanOrEqual(100);
  });

  it('answers null for a process that does not exist', () => {
    expect(readProcessCpuMs(2_147_483_646)).toBeNull();
  });
});

describe('StackCpuMeter', () => {
  it('counts each process\'s CPU between start and stop, and leaves out one restarted or gone meanwhile', () => {
    const cpu = new Map([[10, 1_000], [20, 500], [30, 70], [40, 900]]);
    let pids: Record<string, number | undefined> = { listings: 10, 'nats-server': 20, geo: 30, searches: 40 };
    const meter = new StackCpuMeter(() => pids, (pid) => cpu.get(pid) ?? null);
    cpu.set(10, 4_000).set(20, 800).set(31, 5);
    cpu.delete(40);
    pids = { listings: 10, 'nats-server': 20, geo: 31, searches: 40 };
    expect(meter.stop()).toEqual(new Map([['listings', 3_000], ['nats-server', 300]]));
  });
});

describe('cpuPerItem', () => {
  it('gives the stack\'s CPU per item in all and by process, most first, as numbers', () => {
    const used = new Map([['nats-server', 400], ['listings', 3_000], ['gateway', 100]]);
    expect(cpuPerItem(used, 2_000)).toEqual({ totalMs: 1.75, byProcess: [['listings', 1.5], ['nats-server', 0.2], ['gateway', 0.05]] });
  });

  it('answers null when nothing was measured', () => {
    expect(cpuPerItem(new Map(), 10)).toBeNull();
    expect(cpuPerItem(new Map([['listings', 5]]), 0)).toBeNull();
  });
});

describe('describeCpuPerItem', () => {
  it('gives the stack\'s CPU per item by process, most first, as text', () => {
    const used = new Map([['nats-server', 400], ['listings', 3_000], ['gateway', 100]]);
    expect(describeCpuPerItem(used, 2_000, 'snapshot')).toBe('CPU per snapshot 1.75 ms (listings 1.50, nats-server 0.20, gateway 0.05)');
  });

  it('says so when nothing was measured', () => {
    expect(describeCpuPerItem(new Map(), 10, 'snapshot')).toBe('CPU per snapshot not measured');
    expect(describeCpuPerItem(new Map([['listings', 5]]), 0, 'snapshot')).toBe('CPU per snapshot not measured');
  });
});
