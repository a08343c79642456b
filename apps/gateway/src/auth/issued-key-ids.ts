import type { OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection, Subscription } from 'nats';
import { SEARCHES_SUBJECTS, type IssuedKeyIdsPage, type KeyIssuedMessage } from '@immo/contracts';
import type { NatsRpcClient } from '@immo/service-kit';

/** Wait between two attempts to load the ids (the searches service not up yet, say). */
const RELOAD_RETRY_MS = 1000;
/** A round trip to the NATS server longer than this (a connection going down) decides nothing. */
const ROUND_TRIP_TIMEOUT_MS = 1000;

/**
 * The id of every account key ever issued, so that a well-formed key whose id was never issued
 * (a guess) is refused without asking the searches service: guesses cost no NATS request and
 * leave nothing in the key cache. A plain set: ids are 12 characters and accounts have a few keys
 * each, so even a million keys fit in some tens of MB, and a set is exact where a Bloom filter
 * would let some guesses through to a lookup.
 *
 * The ids are loaded from the searches service, a page at a time, after subscribing to its
 * `keyIssued` broadcast: an id issued while the pages are read arrives by the broadcast (the
 * subscription reaches the server before the first page is asked for, and the service publishes
 * once the key is committed, which a page read after it sees). Until the last page is in, and from
 * a disconnection until the ids are loaded again after it (broadcasts may have been missed), every
 * well-formed key is looked up as before.
 *
 * A key issued through another gateway and used here at once: the searches service publishes the
 * broadcast, and waits until the NATS server has read it, before it answers the issuing command.
 * So the server has queued the broadcast for this gateway's connection before the client could
 * even learn the key; what remains is that this gateway may read its HTTP socket before its NATS
 * socket. An id not in the set is therefore refused only after a round trip to the NATS server
 * begun after the request arrived (the PONG comes after everything queued before it, and the
 * broadcast's callback runs as it is read). The round trip goes to the server, not to the
 * searches service, and checks waiting at the same time share one. With several NATS servers, a
 * broadcast crossing a route more slowly than the client's whole way through another gateway
 * could still be late; the client's retry then succeeds.
 */
export class IssuedKeyIds implements OnApplicationShutdown {
  private readonly ids = new Set<string>();
  private loaded = false;
  /** Moves on each disconnection: a load begun before one does not make the ids known. */
  private epoch = 0;
  private stopped = false;
  private subscription: Subscription | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The round trip the next checks share, not begun yet; and the last one begun. */
  private nextRoundTrip: Promise<boolean> | null = null;
  private lastRoundTrip: Promise<unknown> = Promise.resolve();
  private avoided = 0;

  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly nats: NatsConnection,
    private readonly retryMs = RELOAD_RETRY_MS,
  ) {}

  start(): void {
    this.subscription = this.nats.subscribe(SEARCHES_SUBJECTS.keyIssued, {
      // A callback, not an iterator: it runs as the message is read, before a later PONG resolves.
      callback: (error, message) => {
        if (error) return;
        try {
          this.ids.add((JSON.parse(message.string()) as KeyIssuedMessage).keyId);
        } catch {
          // Not ours to answer: a malformed broadcast changes nothing.
        }
      },
    });
    void this.followConnection();
    void this.load(this.epoch);
  }

  /** Whether every issued id is known here (else each well-formed key is looked up). */
  get known(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.ids.size;
  }

  /** Checks answered here that would have been a lookup before (ids never issued). */
  get lookupsAvoided(): number {
    return this.avoided;
  }

  /**
   * False only when the id is surely not an issued key's; true when it is one, or when the ids
   * are not known at the moment (the caller then looks the key up). Answers at once for an id it
   * knows, after a round trip to the NATS server for one it does not (see the class comment).
   */
  mayBeIssued(keyId: string): boolean | Promise<boolean> {
    if (!this.loaded || this.ids.has(keyId)) return true;
    return this.mayBeIssuedAfterRoundTrip(keyId);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.loaded = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.subscription?.unsubscribe();
  }

  private async mayBeIssuedAfterRoundTrip(keyId: string): Promise<boolean> {
    if (!(await this.roundTripBegunNow())) return true;
    if (!this.loaded || this.ids.has(keyId)) return true;
    this.avoided++;
    return false;
  }

  /**
   * A round trip to the NATS server begun after this call: one already under way may have been
   * sent before the broadcast this check waits for, so callers join the next one, which begins
   * when the one under way ends. False when it failed or took too long.
   */
  private roundTripBegunNow(): Promise<boolean> {
    this.nextRoundTrip ??= this.lastRoundTrip.then(() => {
      this.nextRoundTrip = null;
      const trip = this.roundTrip();
      this.lastRoundTrip = trip;
      return trip;
    });
    return this.nextRoundTrip;
  }

  private async roundTrip(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ROUND_TRIP_TIMEOUT_MS);
      timer.unref();
    });
    try {
      return await Promise.race([this.nats.flush().then(() => true, () => false), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async followConnection(): Promise<void> {
    for await (const status of this.nats.status()) {
      if (this.stopped) return;
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
      this.epoch++;
      this.loaded = false;
      // Broadcasts may have been missed while away: the ids are loaded again (heard ones are kept).
      if (status.type === 'reconnect') void this.load(this.epoch);
    }
  }

  private async load(epoch: number): Promise<void> {
    let after: string | undefined;
    while (!this.stopped && epoch === this.epoch) {
      try {
        const page = await this.rpc.request<IssuedKeyIdsPage>(SEARCHES_SUBJECTS.issuedKeyIds, after === undefined ? {} : { after });
        for (const keyId of page.keyIds) this.ids.add(keyId);
        if (page.next === null) {
          if (!this.stopped && epoch === this.epoch) this.loaded = true;
          return;
        }
        after = page.next;
      } catch {
        // The searches service is not there yet (or NATS is away): keys are looked up meanwhile.
        await new Promise<void>((resolve) => {
          this.retryTimer = setTimeout(resolve, this.retryMs);
          this.retryTimer.unref();
        });
      }
    }
  }
}
