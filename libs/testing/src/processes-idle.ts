import { readProcessCpuTicks } from './process-cpu';

export interface IdleOptions {
  /** Length of each measuring window. */
  windowMs?: number;
  /** Busy share of one core, summed over the processes, under which a window counts as idle. */
  busyShare?: number;
  /** Give up (and say so) after this long: a benchmark must not hang on a busy machine. */
  timeoutMs?: number;
  /** Where to read a process's CPU times (Linux `/proc/<pid>/stat`); tests pass their own. */
  cpuTicksOf?: (pid: number) => number;
  /** Clock ticks per second of `cpuTicksOf` (Linux's USER_HZ is 100). */
  ticksPerSecond?: number;
}

export interface IdleResult {
  idle: boolean;
  waitedMs: number;
  /** Busy share of one core in the last window. */
  lastBusyShare: number;
}

/** User + system CPU ticks of a live process, 0 for one that is gone. */
export function procCpuTicks(pid: number): number {
  return readProcessCpuTicks(pid) ?? 0;
}

/**
 * Waits until the given processes together use less than `busyShare` of one core over a whole
 * window. A benchmark of queries starts from there: after a load the services still collect
 * garbage, expire adverts and feed consumers for several seconds, and a latency measured then
 * is that work's, not the queries'.
 */
export async function waitUntilIdle(pids: readonly number[], options: IdleOptions = {}): Promise<IdleResult> {
  const windowMs = options.windowMs ?? 1000;
  const busyShare = options.busyShare ?? 0.1;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const cpuTicksOf = options.cpuTicksOf ?? procCpuTicks;
  const ticksPerSecond = options.ticksPerSecond ?? 100;
  const total = () => pids.reduce((sum, pid) => sum + cpuTicksOf(pid), 0);
  const started = performance.now();
  let lastBusyShare = Number.NaN;
  for (;;) {
    const before = total();
    const windowStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const elapsedSeconds = (performance.now() - windowStarted) / 1000;
    lastBusyShare = (total() - before) / ticksPerSecond / elapsedSeconds;
    const waitedMs = performance.now() - started;
    if (lastBusyShare < busyShare) return { idle: true, waitedMs, lastBusyShare };
    if (waitedMs >= timeoutMs) return { idle: false, waitedMs, lastBusyShare };
  }
}
