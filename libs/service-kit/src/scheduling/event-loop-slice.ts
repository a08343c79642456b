/**
 * Cooperative time slicing for long chains of promises.
 *
 * Work that awaits promises which are already resolved (a cache hit, a synchronous LMDB read
 * behind an async port) never returns to the event loop: a projection catching up, or a batch of
 * a thousand snapshots, can run for hundreds of milliseconds as one microtask flush, and every
 * request, timer and health probe of the process waits behind it. Such loops call `yieldIfDue()`
 * between items; once the current slice has lasted `budgetMs`, the call resolves on the next turn
 * of the event loop instead of at once.
 *
 * One slice is shared by every loop of the process (`eventLoopSlice`): the budget bounds the time
 * between two turns of the loop, whichever loops share it.
 */
export class EventLoopSlice {
  private sliceStartedAt = performance.now();
  private turn: Promise<void> | null = null;

  constructor(private readonly budgetMs: number) {}

  /** Resolves at once within the slice; after it, on the event loop's next turn (check phase). */
  yieldIfDue(): Promise<void> | undefined {
    if (this.turn) return this.turn;
    if (performance.now() - this.sliceStartedAt < this.budgetMs) return undefined;
    this.turn = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.turn = null;
        this.sliceStartedAt = performance.now();
        resolve();
      }),
    );
    return this.turn;
  }
}

/** The process-wide slice: 10 ms of uninterrupted work at most between two event-loop turns. */
export const eventLoopSlice = new EventLoopSlice(10);
