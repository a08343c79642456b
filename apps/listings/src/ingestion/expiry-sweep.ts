/**
 * Expires, every so often, the adverts whose announced expiry date has passed. One sweep at a
 * time: a sweep of many due adverts outlasts the interval when ingestion keeps the projection
 * busy, and the next one would take the same adverts again (each read and decided twice, for
 * nothing) while the first still waits its turn.
 */
export class ExpirySweep<Due> {
  private running: Promise<void> | null = null;

  constructor(
    private readonly due: (now: Date) => Iterable<Due>,
    private readonly expire: (due: Iterable<Due>) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts a sweep unless one is under way; resolves when the sweep it started (or found) ends. */
  run(now = new Date()): Promise<void> {
    this.running ??= this.expire(this.due(now))
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
