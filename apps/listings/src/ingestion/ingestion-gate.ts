/**
 * Whether this instance may ingest now. It opens once the instance leads ingestion and its
 * projection has reached the head of the log seen when it took the lead: before that, the grouping
 * index misses adverts appended by a previous leader or a previous run, and a new advert would
 * found a duplicate property for good. Callers wait a bounded time, then answer "retry later".
 */
export class IngestionGate {
  private isOpen = false;
  private reason = 'ingestion is starting';
  private waiters: (() => void)[] = [];

  get open(): boolean {
    return this.isOpen;
  }

  /** Why it is closed, for the "retry later" answer. */
  get closedReason(): string {
    return this.reason;
  }

  openNow(): void {
    this.isOpen = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  close(reason: string): void {
    this.isOpen = false;
    this.reason = reason;
  }

  /** True once open, false if still closed after `timeoutMs`. */
  async whenOpen(timeoutMs: number): Promise<boolean> {
    if (this.isOpen) return true;
    return new Promise<boolean>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(this.isOpen);
      }, timeoutMs);
      this.waiters.push(wake);
    });
  }
}
