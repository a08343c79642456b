import { readFileSync } from 'node:fs';

/**
 * What the hypervisor took of this machine's CPUs: Linux counts, in `/proc/stat`, the time a
 * virtual CPU had work but its host ran something else ("steal"). On a shared virtual machine it
 * comes and goes; while it lasts, every process runs slower and waits longer for a CPU, so a
 * benchmark that reports throughput and stalls reports it beside them: a phase measured while the
 * host took a third of the machine says little about the code.
 */
export interface MachineCpuTicks {
  /** Every CPU's time so far, in clock ticks (user, nice, system, idle, iowait, irq, softirq, steal). */
  total: number;
  /** The part of it the host took. */
  steal: number;
}

/** The machine-wide line of `/proc/stat`; guest time is already inside user and nice, so not added again. */
export function parseMachineCpuTicks(procStat: string): MachineCpuTicks | null {
  const line = procStat.split('\n', 1)[0] ?? '';
  if (!line.startsWith('cpu ')) return null;
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] as number };
}

/** The machine's CPU ticks now; null without `/proc` (not Linux). */
export function readMachineCpuTicks(): MachineCpuTicks | null {
  try {
    return parseMachineCpuTicks(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

/** The share of the machine's CPU time the host took between `new` and `stop()`, from 0 to 1. */
export class StealMeter {
  private readonly started: MachineCpuTicks | null;

  constructor(private readonly read: () => MachineCpuTicks | null = readMachineCpuTicks) {
    this.started = read();
  }

  stop(): number | null {
    const now = this.read();
    if (this.started === null || now === null) return null;
    const total = now.total - this.started.total;
    return total > 0 ? (now.steal - this.started.steal) / total : null;
  }
}

/** "the host took 12% of the machine's CPU time (steal)". */
export function describeSteal(share: number | null): string {
  if (share === null) return 'host steal not measured';
  return `the host took ${(100 * share).toFixed(0)}% of the machine's CPU time (steal)`;
}
