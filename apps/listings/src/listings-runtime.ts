import { Logger } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { EventStore } from '@immo/event-store';
import { ExpirySweep } from './ingestion/expiry-sweep';
import type { IngestionGate } from './ingestion/ingestion-gate';
import type { IngestionLease } from './ingestion/ingestion-lease';
import type { IngestionRouter } from './ingestion/ingestion-router';
import type { IngestionService } from './ingestion/ingestion.service';
import type { AdvertDirectory } from './projection/advert-directory';
import type { OutboxRelay } from '@immo/service-kit';
import type { ProjectionRunner } from './projection/projection-runner';
import { ProcessVitals } from './process-vitals';
import { RebuildBroadcast } from './rebuild-broadcast';

const EXPIRY_SWEEP_MS = 60_000;

/** Everything the listings service runs besides its NATS handlers, wired once. */
export class ListingsRuntime {
  private readonly logger = new Logger('Listings');
  private sweep: NodeJS.Timeout | null = null;
  /** Head of the log when the process started: readiness waits for the projection to reach it. */
  private startHead: number | null = null;
  private started = false;
  readonly vitals = new ProcessVitals();

  constructor(
    readonly eventStore: EventStore,
    readonly runner: ProjectionRunner,
    readonly relay: OutboxRelay,
    readonly directory: AdvertDirectory,
    readonly ingestion: IngestionService,
    readonly gate: IngestionGate,
    readonly router: IngestionRouter,
    private readonly lease: IngestionLease,
    /** Whether this replica's read models are its own (not shared with other replicas). */
    ownReadModels: boolean,
    nats: NatsConnection,
  ) {
    this.broadcast = new RebuildBroadcast(nats, () => ownReadModels || this.lease.held, (requestId) => this.rebuild(requestId));
  }

  private readonly broadcast: RebuildBroadcast;

  get leadsIngestion(): boolean {
    return this.lease.held;
  }

  async start(): Promise<void> {
    this.startHead = await this.eventStore.headPosition();
    await this.runner.start();
    this.relay.start();
    this.lease.start();
    this.broadcast.start();
    this.started = true;
    const expiry = new ExpirySweep(
      (now) => this.directory.dueForExpiry(now),
      (due) => this.ingestion.expireDue(due),
      (error) => new Logger('ExpirySweep').error(String(error)),
    );
    this.sweep = setInterval(() => {
      if (this.lease.held && this.gate.open) void expiry.run();
    }, EXPIRY_SWEEP_MS);
    this.sweep.unref();
  }

  /**
   * The service answers on NATS (start-up hooks run before its handlers go live). Once the
   * projection has also caught up with the log as it was at start, the event-loop delay and the
   * collector's pauses measure serving: forgotten before that, they were Nest's own start-up (the
   * microservice and its handlers set up after the hooks, 90 to 170 ms without a turn of the loop,
   * measured with a CPU profile) reported as a stall of the first ingestion.
   */
  serving(): void {
    const caughtUp = this.startHead === null ? Promise.resolve() : this.runner.waitFor(this.startHead);
    void caughtUp.then(() => this.vitals.reset());
  }

  /** Ready once the projection has caught up with the log as it was at start. */
  async caughtUp(): Promise<boolean> {
    if (!this.started || this.runner.failed) return false;
    const committed = this.runner.checkpoint;
    return this.startHead === null || (committed !== null && committed >= this.startHead);
  }

  /** The lease was taken: ingest once the projection has applied everything appended so far. */
  onLeaseAcquired(): void {
    this.gate.close('this instance just took the lead of ingestion and is catching up with the log');
    this.router.lead();
    // With a shared store, the writer now: it makes the stored search rows this version's.
    this.runner.tookWritersTurn();
    // The outbox publishes as leader from now on, whether or not anything new is committed.
    this.relay.kick();
    void this.openWhenCaughtUp();
  }

  onLeaseLost(): void {
    this.gate.close('this instance no longer leads ingestion');
    this.router.follow();
    // What the new leader publishes is dropped from this replica's outbox from now on.
    this.relay.kick();
  }

  /** Has every replica concerned rebuild its read models (see `RebuildBroadcast`). */
  announceRebuild(requestId: string | null): void {
    this.broadcast.announce(requestId);
  }

  async rebuild(requestId: string | null = null): Promise<void> {
    this.gate.close('the read models are being rebuilt');
    await this.runner.rebuild(requestId);
    void this.openWhenCaughtUp();
  }

  async stop(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.broadcast.stop();
    await this.lease.stop();
    await this.runner.stop();
    await this.runner.saveSnapshot();
    await this.relay.stop();
    this.vitals.close();
  }

  private async openWhenCaughtUp(): Promise<void> {
    try {
      const head = await this.eventStore.headPosition();
      if (head !== null) await this.runner.waitFor(head);
      if (this.lease.held) this.gate.openNow();
    } catch (error) {
      this.logger.error(`could not tell whether the projection caught up: ${String(error)}; retrying`);
      setTimeout(() => void this.openWhenCaughtUp(), 1000).unref();
    }
  }
}

