/** Raised when the projection stayed too far behind for the whole wait: the caller retries later. */
export class ProjectionLagError extends Error {}

/** One admitted append: say how it ended, so its place is given back once the projection has it. */
export interface AdmittedAppend {
  /** The append landed at `position`: its place is free once the projection committed it. */
  appended(position: number): void;
  /** The append was not made (refused, timed out, failed): its place is free at once. */
  abandoned(): void;
}

/**
 * Keeps ingestion at most `maxAhead` appends ahead of the projection. Ingestion can append far
 * faster than the projection folds, groups and stores: unchecked, the backlog grows without bound
 * (memory, a minutes-long lag during which reads and alerts are stale, a long catch-up after a
 * crash), so crawlers are slowed to the rate the service actually keeps up with.
 *
 * A counting semaphore of `maxAhead` places: an append takes one before it starts and gives it
 * back once the projection committed its position. Places are taken before the append, not
 * counted after it, so concurrent appends (one per grouping bucket) cannot all pass a check that
 * only one of them fits. Waiting is first come, first served and bounded: a projection that does
 * not move answers "retry later" instead of holding requests forever.
 */
export class ProjectionLagLimit {
  private taken = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly maxAhead: number,
    private readonly projected: (position: number) => Promise<void>,
    private readonly maxWaitMs: number,
  ) {}

  /**
   * Resolves with a place once fewer than `maxAhead` appends are unprojected; rejects after
   * `maxWaitMs`, or after `withinMs` when that is shorter (what is left of the caller's own time).
   */
  async admit(withinMs = Number.POSITIVE_INFINITY): Promise<AdmittedAppend> {
    if (this.taken < this.maxAhead && this.queue.length === 0) {
      this.taken++;
      return this.place();
    }
    await new Promise<void>((resolve, reject) => {
      const handOver = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(
        () => {
          this.queue.splice(this.queue.indexOf(handOver), 1);
          reject(new ProjectionLagError(`the projection is more than ${this.maxAhead} appends behind ingestion`));
        },
        Math.max(0, Math.min(this.maxWaitMs, withinMs)),
      );
      this.queue.push(handOver);
    });
    // The place was handed over by `release` without being counted free in between.
    return this.place();
  }

  private place(): AdmittedAppend {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.release();
    };
    return {
      appended: (position) => void this.projected(position).then(release, release),
      abandoned: release,
    };
  }

  /** Hands the place to the first waiter, or frees it: a newcomer never takes it in between. */
  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.taken--;
  }
}
