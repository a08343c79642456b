import { Logger } from '@nestjs/common';
import type { CollectionSpec, DocumentCollection, DocumentStore, StoredDocument } from '@immo/document-store';
import { ErrorCode, NatsError } from 'nats';
import { SerialLoop } from '@immo/runtime';
import { eventLoopSlice } from '../scheduling/event-loop-slice';

/** Publishes one JSON-encoded message under its id (and its outbox record's); resolves once the broker has stored it. */
export type PublishIntegrationEvent = (subject: string, eventId: string, payload: string, outboxId?: string) => Promise<void>;

/** A message waiting in an outbox, written in the same commit as the change it announces. */
export interface OutboxRecord extends StoredDocument {
  subject: string;
  eventId: string;
  /** The message, JSON-encoded. */
  payload: string;
}

/** A message the broker refused for good (too large), kept for an operator to see. */
export interface DeadLetterRecord extends OutboxRecord {
  reason: string;
}

/** Outbox ids sort in commit order: the position of the change, then the message's index among its messages. */
export function outboxId(position: number, index: number): string {
  return `${String(position).padStart(16, '0')}:${String(index).padStart(4, '0')}`;
}

/** Where an outbox lives: its records (drained in `_id` order) and the dead letters set aside. */
export interface OutboxCollections {
  outbox: CollectionSpec;
  deadLetters: CollectionSpec;
  /**
   * For replicas that each fill an outbox of their own with the same records: the id up to which
   * records are already on the stream (published by another replica), dropped without being
   * published again; null to publish everything. Asked before each page.
   */
  alreadyPublished?: () => Promise<string | null>;
  /**
   * Whether this relay publishes now (default: always). One that does not only drops what
   * `alreadyPublished` says is on the stream: replicas with outboxes of their own leave the
   * publishing to one of them, so the stream never holds a newer record before an older one.
   */
  publishes?: () => boolean;
}

const PAGE = 500;
/**
 * Records read from the store at a time. A page's ids come first (from the store's index, no
 * record read), then its records this many at a time between turns of the event loop: at 200,000
 * properties, reading a page of 500 records of several KB in one go held the loop 100 to 150 ms.
 */
const READ_CHUNK = 25;
/**
 * Records told to the relay as committed (see `kick`) that it keeps until they are published: at
 * most this many (about 17 MB of listings' records). Beyond, the rest are read from the store.
 */
const MAX_REMEMBERED = 5_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

/** The outcome of a publish, observed at once (a rejection is never left unhandled while the loop yields). */
function settle(publishing: Promise<void>): Promise<PromiseSettledResult<void>> {
  return publishing.then(
    (value): PromiseFulfilledResult<void> => ({ status: 'fulfilled', value }),
    (reason: unknown): PromiseRejectedResult => ({ status: 'rejected', reason }),
  );
}

/**
 * A publish that can never succeed, whatever the retries: the message is over the broker's
 * payload limit. Retrying it would hold back every event behind it for good.
 */
export function isPermanentPublishFailure(error: unknown): boolean {
  return error instanceof NatsError && error.code === ErrorCode.MaxPayloadExceeded;
}

/**
 * Drains the integration outbox in order: publishes each event (with its id as `Nats-Msg-Id`),
 * then deletes what the broker acknowledged. A failed or unacknowledged publish stays in the
 * outbox and is retried with backoff; a crash between the acknowledgement and the delete
 * publishes the same id again, which JetStream's duplicate window or the consumer's id check drops.
 */
export class OutboxRelay {
  private readonly logger = new Logger('OutboxRelay');
  private readonly outbox: DocumentCollection<OutboxRecord>;
  /** Drains one at a time; a kick during a drain drains once more after it. */
  private readonly drains = new SerialLoop(
    () => this.drain(),
    (error) => this.retryLater(error),
  );
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = RETRY_MIN_MS;
  /**
   * Until `start`, kicks are ignored: a relay built and never started (a second set of projections
   * over the same store) drained on its writer's commits anyway, and with nothing ever to stop it,
   * went on retrying every 5 s once that store was closed. `start` drains whatever is stored.
   */
  private stopped = true;
  private published = 0;
  private failures = 0;
  private deadLettered = 0;
  private skipped = 0;
  /**
   * Records the writer handed over with their commit, by id, so that the relay publishes them
   * without reading back from the store what was just written there (decoding several KB each).
   * The store stays the truth: ids come from it, and what is not remembered is read from it.
   */
  private readonly remembered = new Map<string, OutboxRecord>();

  constructor(
    private readonly store: DocumentStore,
    private readonly publish: PublishIntegrationEvent,
    private readonly collections: OutboxCollections,
  ) {
    this.outbox = store.collection<OutboxRecord>(collections.outbox);
    store.collection<DeadLetterRecord>(collections.deadLetters);
  }

  get publishedCount(): number {
    return this.published;
  }

  get failedAttempts(): number {
    return this.failures;
  }

  /** Events set aside because the broker can never take them (see `isPermanentPublishFailure`). */
  get deadLetterCount(): number {
    return this.deadLettered;
  }

  pending(): Promise<number> {
    return this.outbox.count({});
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /**
   * Something was added to the outbox: drain it (now, or right after the current drain), once started.
   * `committed`: the records just committed, when the writer has them at hand (never records of a
   * commit that failed or has not completed).
   */
  kick(committed: Iterable<OutboxRecord> = []): void {
    if (this.stopped) return;
    for (const record of committed) {
      if (this.remembered.size >= MAX_REMEMBERED) break;
      this.remembered.set(record._id, record);
    }
    if (this.retryTimer) return; // a retry is already scheduled after a failure
    this.drains.kick();
  }

  /** Resolves once the outbox is empty (for tests and graceful shutdown). */
  async settled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Checked once more at the deadline: a drain that ends during the last pause has settled in time.
      if ((await this.outbox.count({})) === 0 && !this.drains.busy) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.drains.idle();
    this.remembered.clear();
  }

  /** The records of these ids, in their order: remembered ones as they are, the others read from the store. */
  private async recordsOf(ids: readonly string[]): Promise<OutboxRecord[]> {
    const unknown = ids.filter((id) => !this.remembered.has(id));
    const read = unknown.length === 0 ? [] : await this.outbox.find({ _id: { $in: unknown } });
    const readById = new Map(read.map((record) => [record._id, record]));
    // Only this relay deletes records, so every id of the page is still there.
    return ids.flatMap((id) => {
      const record = this.remembered.get(id) ?? readById.get(id);
      return record ? [record] : [];
    });
  }

  /** Publishes and deletes a page at a time until the outbox is empty; throws on a failed publish. */
  private async drain(): Promise<void> {
    for (;;) {
      // Stopped, or a retry is scheduled after a failure: that retry drains.
      if (this.stopped || this.retryTimer) return;
      const ids = (await this.outbox.find({}, { sort: { _id: 1 }, limit: PAGE, projection: { _id: 1 } })).map((record) => record._id);
      if (ids.length === 0) {
        // Everything committed is published: what is still remembered never reached the store.
        this.remembered.clear();
        return;
      }
      if (await this.dropAlreadyPublished(ids)) continue;
      // Not this replica's turn to publish: the rest waits for the publishing one (or for this one's turn).
      if (this.collections.publishes && !this.collections.publishes()) return;
      // Pipelined on one connection, so the broker receives them in outbox order. Encoding a
      // page (up to 500 messages of several KB) in one go held the event loop for 100 to 240 ms:
      // the loop gets its turns between messages, as other long loops of the process do.
      const page: OutboxRecord[] = [];
      const sent: Promise<PromiseSettledResult<void>>[] = [];
      for (let start = 0; start < ids.length; start += READ_CHUNK) {
        const due = start > 0 ? eventLoopSlice.yieldIfDue() : undefined;
        if (due) await due;
        const records = await this.recordsOf(ids.slice(start, start + READ_CHUNK));
        for (const [i, record] of records.entries()) {
          const turn = i > 0 ? eventLoopSlice.yieldIfDue() : undefined;
          if (turn) await turn;
          page.push(record);
          sent.push(settle(this.publish(record.subject, record.eventId, record.payload, record._id)));
        }
      }
      const results = await Promise.all(sent);
      const acknowledged = page.filter((_, i) => results[i]?.status === 'fulfilled');
      const dead = page.flatMap((record, i) => {
        const result = results[i];
        return result?.status === 'rejected' && isPermanentPublishFailure(result.reason) ? [{ record, reason: String(result.reason) }] : [];
      });
      if (acknowledged.length > 0 || dead.length > 0) {
        const { outbox, deadLetters } = this.collections;
        // Out of the outbox, and dead letters kept aside, in one commit.
        await this.store.commit([
          ...acknowledged.map((record) => ({ collection: outbox.name, deleteId: record._id })),
          ...dead.flatMap(({ record, reason }) => [
            { collection: deadLetters.name, upsert: { ...record, reason } as DeadLetterRecord },
            { collection: outbox.name, deleteId: record._id },
          ]),
        ]);
        for (const { _id } of acknowledged) this.remembered.delete(_id);
        for (const { record } of dead) this.remembered.delete(record._id);
        this.published += acknowledged.length;
        this.deadLettered += dead.length;
        for (const { record, reason } of dead) this.logger.error(`integration event ${record.eventId} can never be published (${reason}); kept in ${this.collections.deadLetters.name}`);
      }
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !isPermanentPublishFailure(r.reason));
      if (failed) throw failed.reason;
      this.retryMs = RETRY_MIN_MS;
    }
  }

  /**
   * Drops the records of the page that another replica already published (see
   * `OutboxCollections.alreadyPublished`); true when it dropped some.
   */
  private async dropAlreadyPublished(ids: readonly string[]): Promise<boolean> {
    if (!this.collections.alreadyPublished) return false;
    const upTo = await this.collections.alreadyPublished();
    if (upTo === null) return false;
    const done = ids.filter((id) => id <= upTo);
    if (done.length === 0) return false;
    await this.store.commit(done.map((id) => ({ collection: this.collections.outbox.name, deleteId: id })));
    for (const id of done) this.remembered.delete(id);
    this.skipped += done.length;
    return true;
  }

  /** Records dropped because another replica had published them. */
  get skippedCount(): number {
    return this.skipped;
  }

  /** After a failed drain: the next one after a backoff. */
  private retryLater(error: unknown): void {
    this.failures++;
    if (this.stopped) return;
    this.logger.warn(`publishing the outbox failed (${String(error)}); retrying in ${this.retryMs} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.kick();
    }, this.retryMs);
    // A pending retry alone does not hold the process open (its service's connections do).
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}
