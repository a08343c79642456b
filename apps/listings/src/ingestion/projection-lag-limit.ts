/** Raised when the projection stayed too far behind for the whole wait: the caller retries later. */
export class ProjectionLagError extends Error {}

/**
 * Keeps ingestion at most `maxAhead` appends ahead of the projection. Ingestion can append far
 * faster than the projection folds, groups and stores: unchecked, the backlog grows without bound
 * (memory, a minutes-long lag during which reads and alerts are stale, a long catch-up after a
 * crash). Before each append, `admit` waits until the append made `maxAhead` appends ago is
 * projected, so crawlers are slowed to the rate the service actually keeps up with.
 *
 * Only the positions of the last `maxAhead` appends are kept (a ring); waiting is bounded, and a
 * projection that does not move answers "retry later" instead of holding requests forever.
 */
export class ProjectionLagLimit {
  private readonly recent: number[] = [];
  private next = 0;

  constructor(
    private readonly maxAhead: number,
    private readonly projected: (position: number) => Promise<void>,
    private readonly maxWaitMs: number,
  ) {}

  /**
   * Resolves once the append `maxAhead` appends ago is projected; rejects after `maxWaitMs`, or
   * after `withinMs` when that is shorter (what is left of the caller's own time).
   */
  async admit(withinMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (this.recent.length < this.maxAhead) return;
    const oldest = this.recent[this.next] as number;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ProjectionLagError(`the projection is more than ${this.maxAhead} appends behind ingestion`)),
        Math.max(0, Math.min(this.maxWaitMs, withinMs)),
      );
    });
    try {
      await Promise.race([this.projected(oldest), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  appended(position: number): void {
    if (this.recent.length < this.maxAhead) {
      this.recent.push(position);
      return;
    }
    this.recent[this.next] = position;
    this.next = (this.next + 1) % this.maxAhead;
  }
}
