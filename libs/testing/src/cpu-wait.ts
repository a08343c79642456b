import { readFileSync } from 'node:fs';

/**
 * How long a process's main thread waited for a CPU while it had work: Linux's schedstat, which
 * counts the time a thread spent runnable but not running. An event-loop delay is work the loop
 * did or a CPU it did not get; on a machine with fewer cores than busy threads, the second can
 * be most of it, and a benchmark that reports stalls reports this beside them.
 */
export interface CpuWaitSummary {
  /** Time covered by the samples. */
  spanMs: number;
  /** Time the thread ran on a CPU. */
  runMs: number;
  /** Time the thread was ready to run and waited for a CPU. */
  waitMs: number;
  /** The most waiting within any `windowMs` of the span. */
  worstWindowWaitMs: number;
  windowMs: number;
}

/** One reading: a clock time and the thread's cumulative run and wait times, all in milliseconds. */
export interface SchedSample {
  atMs: number;
  runMs: number;
  waitMs: number;
}

/** Run and wait times of a thread (`/proc/<pid>/task/<tid>/schedstat`: nanoseconds on a CPU, nanoseconds waiting, timeslices), or null when it is gone. */
export function readSchedstat(pid: number, tid = pid): { runMs: number; waitMs: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return null;
    return { runMs: (run as number) / 1e6, waitMs: (wait as number) / 1e6 };
  } catch {
    return null;
  }
}

/** Totals and the worst sliding window of waiting over samples in time order. */
export function summarizeCpuWait(samples: readonly SchedSample[], windowMs: number): CpuWaitSummary {
  const first = samples[0];
  const last = samples.at(-1);
  if (first === undefined || last === undefined) return { spanMs: 0, runMs: 0, waitMs: 0, worstWindowWaitMs: 0, windowMs };
  let worst = 0;
  for (let end = 0, start = 0; end < samples.length; end++) {
    const endSample = samples[end] as SchedSample;
    while ((samples[start] as SchedSample).atMs < endSample.atMs - windowMs) start++;
    worst = Math.max(worst, endSample.waitMs - (samples[start] as SchedSample).waitMs);
  }
  return { spanMs: last.atMs - first.atMs, runMs: last.runMs - first.runMs, waitMs: last.waitMs - first.waitMs, worstWindowWaitMs: worst, windowMs };
}

/**
 * Samples a process's main thread every `intervalMs` until stopped. Reading one small file per
 * sample costs the machine next to nothing beside the load it watches.
 */
export class CpuWaitSampler {
  private readonly samples: SchedSample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    private readonly windowMs = 100,
    intervalMs = 10,
    private readonly read: (pid: number) => { runMs: number; waitMs: number } | null = readSchedstat,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Stops sampling and summarizes; a process without schedstat (not Linux, or gone) gives null. */
  stop(): CpuWaitSummary | null {
    clearInterval(this.timer);
    this.sample();
    return this.samples.length < 2 ? null : summarizeCpuWait(this.samples, this.windowMs);
  }

  private sample(): void {
    const reading = this.read(this.pid);
    if (reading !== null) this.samples.push({ atMs: performance.now(), ...reading });
  }
}

/** "main thread waited for a CPU 12% of the time it had work, up to 85 ms in 100 ms". */
export function describeCpuWait(summary: CpuWaitSummary | null): string {
  if (summary === null) return 'main thread CPU wait not measured (no schedstat)';
  const busy = summary.runMs + summary.waitMs;
  const share = busy > 0 ? (100 * summary.waitMs) / busy : 0;
  return `main thread waited for a CPU ${share.toFixed(0)}% of the time it had work, up to ${summary.worstWindowWaitMs.toFixed(0)} ms in ${summary.windowMs} ms`;
}
