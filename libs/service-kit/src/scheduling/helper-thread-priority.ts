import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

const TASKS_DIR = '/proc/self/task';
/** The least priority Linux has. */
const MAX_NICE = 19;
/** Threads started later (libuv's pool starts on first use) are found by looking again. */
const RESCAN_MS = 2_000;

export interface ThreadDirectory {
  /** Ids of the process's threads, or null where the system does not list them. */
  threadIds(): number[] | null;
  /** One thread's nice value (on Linux a nice value is a thread's own, not its process's). */
  niceOf(threadId: number): number;
  setNice(threadId: number, nice: number): void;
}

/** The running process's threads, from Linux's /proc. */
export const procThreads: ThreadDirectory = {
  threadIds() {
    try {
      return readdirSync(TASKS_DIR).map(Number);
    } catch {
      return null;
    }
  },
  niceOf: (threadId) => getPriority(threadId),
  setNice: (threadId, nice) => setPriority(threadId, nice),
};

/**
 * Gives the event loop the CPU before the process's helper threads: every thread but the main one
 * (V8's collector threads, libuv's pool, where lmdb writes its batches) runs `increment` nicer. On a
 * machine whose cores are all busy, Linux's fair scheduler places a thread that wakes from a
 * sleep ahead of one that has kept running; a helper thread sleeps and wakes all the time, the
 * event loop of a busy service seldom sleeps, so the loop, ready to run, waited 60-180 ms at a
 * time while its own helpers held the cores. A helper `increment` nicer than the main thread
 * still gets every idle CPU; it only yields when the loop wants one. Lowering a priority needs no
 * privilege.
 */
export class HelperThreadPriority {
  private readonly done = new Set<number>();

  constructor(
    private readonly increment: number,
    private readonly mainThreadId = process.pid,
    private readonly threads: ThreadDirectory = procThreads,
  ) {}

  /** Lowers the priority of helper threads not seen before; returns how many it lowered. */
  apply(): number {
    if (this.increment === 0) return 0;
    const ids = this.threads.threadIds();
    if (ids === null) return 0;
    const nice = Math.min(MAX_NICE, this.threads.niceOf(this.mainThreadId) + this.increment);
    let lowered = 0;
    const live = new Set(ids);
    // Thread ids are reused: a new thread under the id of one that ended is lowered too.
    for (const id of this.done) if (!live.has(id)) this.done.delete(id);
    for (const id of ids) {
      if (id === this.mainThreadId || this.done.has(id)) continue;
      this.done.add(id);
      // A thread may have ended since it was listed: nothing to lower then.
      try {
        this.threads.setNice(id, nice);
        lowered++;
      } catch {
        /* ended */
      }
    }
    return lowered;
  }

  /** Applies now, then again every few seconds for the life of the process (threads started later). */
  start(): void {
    this.apply();
    if (this.increment !== 0) setInterval(() => this.apply(), RESCAN_MS).unref();
  }
}
