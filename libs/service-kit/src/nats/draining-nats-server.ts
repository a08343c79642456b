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
  /** The subscriptions Nest made for the handlers (see `bindEvents`). */
  private readonly handlerSubscriptions: Subscription[] = [];

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
      this.unwrap<NatsConnection>().flush().then(
        () => callback(),
        (error: unknown) => callback(error),
      );
    });
  }

  /**
   * Nest subscribes each handler's subject on the client it is given here and keeps the
   * subscriptions to itself: it is given a client that notes them and subscribes on the real one.
   */
  override bindEvents(client: NatsConnection): void {
    const noting: Pick<NatsConnection, 'subscribe'> = {
      subscribe: (subject, options) => {
        const subscription = client.subscribe(subject, options);
        this.handlerSubscriptions.push(subscription);
        return subscription;
      },
    };
    super.bindEvents(noting);
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
    // Draining (not just unsubscribing) also handles the requests the server routed here before
    // it learnt of the unsubscription.
    await Promise.all(this.handlerSubscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
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
