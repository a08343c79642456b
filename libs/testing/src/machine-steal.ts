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

/** What the host took over a span: of all of it, and of its worst second. */
export interface StealSummary {
  /** Share of the machine's CPU time over the whole span, from 0 to 1. */
  share: number;
  /** The largest share within one sampling interval. */
  worstShare: number;
  intervalMs: number;
}

/**
 * The host's steal between `new` and `stop()`, sampled every `intervalMs`: a burst of it is short
 * (a minute or two) and hides in a long phase's average, while the stall it causes is the phase's
 * worst, so the worst interval is given too.
 */
export class StealMeter {
  private readonly first: MachineCpuTicks | null;
  private last: MachineCpuTicks | null;
  private worst = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly read: () => MachineCpuTicks | null = readMachineCpuTicks,
    private readonly intervalMs = 1_000,
  ) {
    this.first = read();
    this.last = this.first;
    this.timer = setInterval(() => this.sample(true), intervalMs);
    this.timer.unref();
  }

  /** Stops sampling; null without readings or when no time passed. */
  stop(): StealSummary | null {
    clearInterval(this.timer);
    // The stretch since the last sample may be a few ticks long: one tick of steal in it would read as a burst.
    this.sample(false);
    if (this.first === null || this.last === null) return null;
    const share = shareOf(this.first, this.last);
    return share === null ? null : { share, worstShare: Math.max(this.worst, share), intervalMs: this.intervalMs };
  }

  private sample(whole: boolean): void {
    const now = this.read();
    if (now === null) return;
    if (whole && this.last !== null) this.worst = Math.max(this.worst, shareOf(this.last, now) ?? 0);
    this.last = now;
  }
}

function shareOf(from: MachineCpuTicks, to: MachineCpuTicks): number | null {
  const total = to.total - from.total;
  return total > 0 ? (to.steal - from.steal) / total : null;
}

/** "the host took 3% of the machine's CPU time (steal), up to 52% in 1 s". */
export function describeSteal(summary: StealSummary | null): string {
  if (summary === null) return 'host steal not measured';
  const percent = (share: number) => `${(100 * share).toFixed(0)}%`;
  return `the host took ${percent(summary.share)} of the machine's CPU time (steal), up to ${percent(summary.worstShare)} in ${summary.intervalMs / 1000} s`;
}
