import { ServerNats, type NatsOptions, type WritePacket } from '@nestjs/microservices';
import type { NatsConnection, Subscription } from 'nats';
import type { Observable, Subscription as RxSubscription } from 'rxjs';

/**
 * Nest's NATS server, able to stop taking requests without dropping the ones under way: it counts
 * the requests being handled, and `drainRequests` drains its subscriptions (the queue group's other members
 * get the next requests, or callers learn at once that no one answers) and waits until the
 * handled ones have replied. Nest's own graceful option can only wait a fixed time.
 */
export class DrainingNatsServer extends ServerNats {
  private handling = 0;
  private readonly idle: (() => void)[] = [];

  constructor(options: Required<NatsOptions>['options']) {
    super(options);
  }

  /**
   * Nest reports the server started as soon as it has made its subscriptions, before they reach
   * nats-server: a request sent at that moment found no responder. Started here means flushed.
   */
  override start(callback: (err?: unknown, ...optionalParams: unknown[]) => void): void {
    super.start((err?: unknown) => {
      if (err) return callback(err);
      // Nest keeps its connection in a private field.
      const client = (this as unknown as { natsClient: NatsConnection | null }).natsClient;
      (client?.flush() ?? Promise.resolve()).then(
        () => callback(),
        (error: unknown) => callback(error),
      );
    });
  }

  get inFlight(): number {
    return this.handling;
  }

  override async handleMessage(channel: string, natsMsg: unknown): Promise<unknown> {
    this.handling++;
    try {
      return await super.handleMessage(channel, natsMsg);
    } finally {
      this.release();
    }
  }

  /**
   * Nest answers after `handleMessage` returns: the handler's observable is subscribed here and
   * its reply published on a later tick. A request counts as handled once its last reply is out.
   */
  override send(stream$: Observable<unknown>, respond: (data: WritePacket) => Promise<unknown> | void): RxSubscription {
    this.handling++;
    let released = false;
    return super.send(stream$, async (packet) => {
      try {
        return await respond(packet);
      } finally {
        if (packet.isDisposed && !released) {
          released = true;
          this.release();
        }
      }
    });
  }

  private release(): void {
    this.handling--;
    if (this.handling === 0) for (const wake of this.idle.splice(0)) wake();
  }

  /** Resolves once no request is being handled, or after `timeoutMs`; false when some were still running. */
  async drainRequests(timeoutMs: number): Promise<boolean> {
    // Nest keeps the subscriptions it made in a private field. Draining (not just unsubscribing)
    // also handles the requests the server routed here before it learnt of the unsubscription.
    const subscriptions = (this as unknown as { subscriptions: Subscription[] }).subscriptions;
    await Promise.all(subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
    if (this.handling === 0) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
