import type { YieldToEventLoop } from '@immo/runtime';

/** Undefined to go on, or a promise to wait for first: what `EventLoopSlice.yieldIfDue` answers (declared in contracts, asked by the stores between pieces of their work). */
export type { YieldToEventLoop };

/**
 * Cooperative time slicing for long chains of promises.
 *
 * Work that awaits promises which are already resolved (a cache hit, a synchronous LMDB read
 * behind an async port) never returns to the event loop: a projection catching up, or a batch of
 * a thousand snapshots, can run for hundreds of milliseconds as one microtask flush, and every
 * request, timer and health probe of the process waits behind it. Such loops call `yieldIfDue()`
 * between items; once the current slice has lasted `budgetMs`, the call resolves on a later turn
 * of the event loop instead of at once.
 *
 * One slice is shared by every loop of the process (`eventLoopSlice`): the budget bounds the time
 * between two turns of the loop, whichever loops share it. The loops that yielded resume one at a
 * time, in the order they yielded, while the new slice lasts; the rest wait for the next turn.
 * Resuming them all at once (as one shared promise would) let 64 concurrent appends each run an
 * item in the same turn: 100 to 230 ms without a turn of the loop, measured at 40,000 properties.
 *
 * Callers resumed together (by one promise) await the answer only when it is a promise:
 * `await undefined` still defers the caller to a later microtask, so each of them would pass its
 * check before any of them had done its work, and all of it would run in one turn.
 */
export class EventLoopSlice {
  private sliceStartedAt = performance.now();
  private readonly waiting: (() => void)[] = [];
  private turnScheduled = false;

  constructor(private readonly budgetMs: number) {}

  /**
   * Undefined (go on) within the slice when nobody is waiting; otherwise a promise that resolves
   * when this caller's turn comes, behind those that yielded before it.
   */
  yieldIfDue(): Promise<void> | undefined {
    if (this.waiting.length === 0 && !this.turnScheduled && performance.now() - this.sliceStartedAt < this.budgetMs) return undefined;
    return this.nextTurn();
  }

  /**
   * For loops of many small items (validating a batch, encoding a commit): undefined while the
   * current slice has time left, whoever waits; past it, a turn behind those waiting. Asked after
   * every item, it bounds a turn by time, not by a count of items: an item's cost is not steady.
   * While V8 marks the old generation (at 200,000 properties every 7 s or so, for 270 to 440 ms),
   * allocating work runs collector steps inside it: validating a batch, asking every 32nd item,
   * ran 114 ms without a turn, 10 to 30 ms of collection after each of a few items (a CPU profile
   * matched to a listings-scale stall; 11 of the 12 stalls over 75 ms in which the main thread ran
   * fell in such a window). Unlike `yieldIfDue` it does not give way to waiting loops within the
   * budget: asked per item, that sent a batch to the back of the queue hundreds of times and slowed
   * ingestion by a tenth.
   */
  yieldIfSpent(): Promise<void> | undefined {
    if (performance.now() - this.sliceStartedAt < this.budgetMs) return undefined;
    return this.nextTurn();
  }

  /** A place behind those waiting; resolves when its turn comes. */
  private nextTurn(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.scheduleTurn();
    });
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.sliceStartedAt = performance.now();
      this.resumeNext();
    });
  }

  /**
   * Resumes the first waiter; the check queued behind it runs once that waiter's continuation has
   * run up to its next await, and resumes the next one if the slice has time left.
   */
  private resumeNext(): void {
    const next = this.waiting.shift();
    if (next === undefined) return;
    next();
    queueMicrotask(() => {
      if (performance.now() - this.sliceStartedAt < this.budgetMs) this.resumeNext();
      else if (this.waiting.length > 0) this.scheduleTurn();
    });
  }
}

/** The process-wide slice: 10 ms of uninterrupted work at most between two event-loop turns. */
export const eventLoopSlice = new EventLoopSlice(10);
