import { readFileSync } from 'node:fs';

/** Linux's clock tick for /proc's CPU times (USER_HZ): 1/100 s on every architecture Node runs on. */
const MS_PER_TICK = 10;

/**
 * User + system clock ticks a process has used so far, every thread of it (`/proc/<pid>/stat`,
 * fields 14 and 15); null when the process is gone or there is no /proc.
 */
export function readProcessCpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** CPU time a process has used so far, every thread of it, in milliseconds; null when it is gone. */
export function readProcessCpuMs(pid: number): number | null {
  const ticks = readProcessCpuTicks(pid);
  return ticks === null ? null : ticks * MS_PER_TICK;
}

/**
 * The CPU each process of a stack used between `new` and `stop()`: what a benchmark's throughput
 * costs, whichever process pays it. A process restarted in between (a new pid) or gone is left
 * out rather than counted wrong.
 */
export class StackCpuMeter {
  private readonly started: Map<string, { pid: number; cpuMs: number }>;

  constructor(
    private readonly pids: () => Record<string, number | undefined>,
    private readonly read: (pid: number) => number | null = readProcessCpuMs,
  ) {
    this.started = this.readAll();
  }

  /** CPU milliseconds used since construction, by process name. */
  stop(): Map<string, number> {
    const used = new Map<string, number>();
    for (const [name, now] of this.readAll()) {
      const then = this.started.get(name);
      if (then !== undefined && then.pid === now.pid) used.set(name, now.cpuMs - then.cpuMs);
    }
    return used;
  }

  private readAll(): Map<string, { pid: number; cpuMs: number }> {
    const readings = new Map<string, { pid: number; cpuMs: number }>();
    for (const [name, pid] of Object.entries(this.pids())) {
      if (pid === undefined) continue;
      const cpuMs = this.read(pid);
      if (cpuMs !== null) readings.set(name, { pid, cpuMs });
    }
    return readings;
  }
}

/** The CPU a stack used for each item, in milliseconds: all its processes together, and each of them. */
export interface CpuPerItem {
  totalMs: number;
  /** By process, most first. */
  byProcess: ReadonlyArray<readonly [name: string, ms: number]>;
}

/**
 * The CPU per item of what a `StackCpuMeter` measured, as numbers, for a benchmark that compares
 * it with another figure (a ratio to a floor measured in the same run); null when nothing was
 * measured (no /proc, every process restarted or gone) or there were no items.
 */
export function cpuPerItem(used: ReadonlyMap<string, number>, items: number): CpuPerItem | null {
  if (used.size === 0 || items <= 0) return null;
  const totalMs = [...used.values()].reduce((sum, ms) => sum + ms, 0) / items;
  const byProcess = [...used].sort((a, b) => b[1] - a[1]).map(([name, ms]) => [name, ms / items] as const);
  return { totalMs, byProcess };
}

/** "CPU per snapshot 2.05 ms (listings 1.57, nats-server 0.21, …)": the whole stack's CPU for each item, by process (most first). */
export function describeCpuPerItem(used: ReadonlyMap<string, number>, items: number, unit: string): string {
  const perItem = cpuPerItem(used, items);
  if (perItem === null) return `CPU per ${unit} not measured`;
  const parts = perItem.byProcess.map(([name, ms]) => `${name} ${ms.toFixed(2)}`);
  return `CPU per ${unit} ${perItem.totalMs.toFixed(2)} ms (${parts.join(', ')})`;
}
