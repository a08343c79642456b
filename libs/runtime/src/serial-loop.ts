/**
 * Runs an asynchronous pass at most once at a time. A kick while a pass runs asks for one more
 * pass after it, however many kicks came, so work noted during a pass is never left waiting and
 * never handled by two passes at once: the shape of every serial commit loop here (a projection's
 * commits, a durable consumer's batches, the outbox relay's drains).
 *
 * A pass that rejects ends the run (no further pass until the next kick) and its error goes to
 * `onFailure`: nothing awaits a kick, so a failure has to be handed to someone.
 */
export class SerialLoop {
  private running = false;
  private again = false;
  /** The run under way, or the last one. */
  private run: Promise<void> = Promise.resolve();

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Runs a pass now, or once more after the pass under way. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.run = this.passes();
  }

  /** Whether a pass is running or asked for. */
  get busy(): boolean {
    return this.running;
  }

  /** Resolves once no pass runs: the one under way, those asked for after it, and any run they kicked. */
  async idle(): Promise<void> {
    while (this.running) await this.run;
  }

  private async passes(): Promise<void> {
    let failure: { error: unknown } | null = null;
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    } catch (error) {
      failure = { error };
    }
    // Done before the failure is handed on, so that a kick from `onFailure` starts a new run.
    this.running = false;
    this.again = false;
    if (failure !== null) this.onFailure(failure.error);
  }
}

/**
 * Items handled in batches of at most `maxBatch`, one batch at a time, in the order they were
 * pushed: what arrives while a batch is handled forms the next one, so a busy source is handled
 * in large batches and a quiet one item at a time, without waiting.
 */
export class SerialBatches<T> {
  private pending: T[] = [];
  private readonly loop: SerialLoop;

  constructor(
    private readonly maxBatch: number,
    handle: (batch: T[]) => Promise<void>,
    onFailure: (error: unknown) => void,
  ) {
    this.loop = new SerialLoop(async () => {
      while (this.pending.length > 0) await handle(this.pending.splice(0, this.maxBatch));
    }, onFailure);
  }

  push(item: T): void {
    this.pending.push(item);
    this.loop.kick();
  }

  /** Items waiting for a batch (not those of the batch being handled). */
  get backlog(): number {
    return this.pending.length;
  }

  /** Drops the items waiting for a batch; the batch being handled goes on. */
  clear(): void {
    this.pending = [];
  }

  /** Resolves once every pushed item has been handed to a batch and the last batch has settled. */
  idle(): Promise<void> {
    return this.loop.idle();
  }
}
