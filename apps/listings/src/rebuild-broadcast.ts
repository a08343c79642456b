import { Logger } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { LISTINGS_SUBJECTS } from '@immo/contracts';

/**
 * A rebuild asked of one replica (the request reaches one of the queue group) is announced to
 * all: each replica with read models of its own rebuilds them; of replicas sharing a store, the
 * one that writes it (the ingestion leader) does, and the others notice and reload (see
 * `ProjectionRunner`). The announcement is a core NATS message: a replica cut off from NATS at
 * that instant keeps its read models as they were (still right: a rebuild repairs, it does not
 * change what the log says).
 */
export class RebuildBroadcast {
  private readonly logger = new Logger('RebuildBroadcast');
  private subscription: Subscription | null = null;

  constructor(
    private readonly nats: NatsConnection,
    /** Whether this replica rebuilds on an announcement (its own store, or it writes the shared one). */
    private readonly rebuildsHere: () => boolean,
    private readonly rebuild: (requestId: string | null) => Promise<void>,
  ) {}

  start(): void {
    this.subscription = this.nats.subscribe(LISTINGS_SUBJECTS.rebuildAnnounced, {
      callback: (error, message) => {
        if (error || !this.rebuildsHere()) return;
        let requestId: string | null = null;
        try {
          requestId = (message.json<{ requestId?: unknown }>().requestId as string | undefined) ?? null;
        } catch {
          // An announcement without a readable request id still asks for a rebuild.
        }
        this.rebuild(requestId).catch((failure: unknown) => this.logger.error(`rebuild failed: ${String(failure)}`));
      },
    });
  }

  announce(requestId: string | null): void {
    this.nats.publish(LISTINGS_SUBJECTS.rebuildAnnounced, JSON.stringify({ requestId }));
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }
}
