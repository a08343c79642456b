import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  jsonEvent,
  NO_STREAM,
  START,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { isPlainObject } from '@immo/runtime';
import { assertValidAppend } from '../append-validation';
import {
  WrongExpectedVersionError,
  type AllSubscription,
  type AppendOptions,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeToAllOptions,
} from '../event-store.port';

export interface EventStoreDbEventStoreOptions {
  /** `esdb://host:port?tls=false` style connection string. */
  url: string;
}

/** Our own limit, matching the JetStream adapter so callers see one rule whichever store is configured. */
const MAX_EVENTS_PER_APPEND = 1000;
const READINESS_PROBE_STREAM = 'event-store-readiness-probe';
const READINESS_TIMEOUT_MS = 2_000;
const DISPOSE_TIMEOUT_MS = 5_000;
/** Events per backwards read of `$all` while headPosition looks past system events. */
const HEAD_PAGE_SIZE = 100;

type EsdbRecordedEvent = NonNullable<ResolvedEvent['event']>;

function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return BigInt(expected);
}

/**
 * What a subscription of this adapter never delivers: the server-side filter drops `$` event types
 * (excludeSystemEvents), and the subscription itself skips `$` streams and types whatever the filter.
 */
function isSystem(event: EsdbRecordedEvent): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

/** What the server sends where it has no `$all` position for an event (UInt64.MaxValue). */
const NO_POSITION = 18_446_744_073_709_551_615n;

/**
 * Positions. EventStoreDB orders `$all` by the pair `{ commit, prepare }` and resumes a
 * subscription strictly after the pair it is given. Its `$all` reader gives an event written by
 * an append (an implicit transaction: every write the gRPC API can make) its own log position as
 * both values, so `commit === prepare` is one number per event, strictly increasing in `$all`
 * order, and `{ commit: n, prepare: n }` resumes exactly after that event: that is the port's
 * position. (A multi-event append does not share one commit position; 20.6.0 reported the first
 * event's position as every event's prepare, fixed in 20.6.1, which is one more reason to read the
 * commit side.) Only an explicit transaction, which the legacy TCP API could write, gives all its
 * events the position of its commit record, with distinct, smaller prepare positions: no single
 * number orders those strictly, and resuming from their commit position would skip the rest of
 * the transaction, so a subscription refuses such an event instead of repeating a position.
 */
function positionOf(position: Position | undefined, context: 'read' | 'subscription', event: EsdbRecordedEvent): number {
  // Stream reads carry positions only from server 22.6 on, and never for explicit transactions.
  if (!position || position.commit === NO_POSITION) {
    if (context === 'read') return -1;
    throw new Error(`event ${event.id} (${event.streamId}@${event.revision}) came from $all without a position`);
  }
  if (position.commit !== position.prepare) {
    if (context === 'read') return -1;
    throw new ExplicitTransactionEventError(event, position);
  }
  return Number(position.commit);
}

/** An event of an explicit transaction met by a subscription; see positionOf. */
export class ExplicitTransactionEventError extends Error {
  override readonly name = 'ExplicitTransactionEventError';
  constructor(event: EsdbRecordedEvent, position: Position) {
    super(
      `event ${event.id} (${event.streamId}@${event.revision}) was written by an explicit transaction ` +
        `(commit ${position.commit}, prepare ${position.prepare}): its commit position is shared with the rest of ` +
        'the transaction, so it has no position this event store can order and resume from',
    );
  }
}

function toRecorded(event: EsdbRecordedEvent, position: number): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: isPlainObject(event.metadata) ? event.metadata : {},
    streamName: event.streamId,
    revision: Number(event.revision),
    position,
    createdAt: event.created,
  };
}

/** Production adapter over EventStoreDB's gRPC client. */
export class EventStoreDbEventStore implements EventStore {
  private readonly subscriptions = new Set<EventStoreDbAllSubscription>();
  private closed = false;

  constructor(private readonly client: EventStoreDBClient) {}

  static async connect(options: EventStoreDbEventStoreOptions): Promise<EventStoreDbEventStore> {
    // The client connects lazily on the first call; parsing the string here surfaces typos early.
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(options.url));
  }

  /** EventStoreDB checks the expected revision itself, without a look-up: `lastPosition` is not needed. */
  async append(stream: string, events: EventData[], options: AppendOptions): Promise<AppendResult> {
    const { expectedRevision } = options;
    assertValidAppend(stream, events, expectedRevision, MAX_EVENTS_PER_APPEND);
    this.assertOpen();
    const payload = events.map((e) =>
      // The port accepts any JSON-serialisable value; the client's JSONType is merely narrower on paper.
      jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, ...(e.metadata ? { metadata: e.metadata } : {}) }),
    );
    try {
      const result = await this.client.appendToStream(stream, payload, { expectedRevision: toExpectedRevision(expectedRevision) });
      const nextExpectedRevision = Number(result.nextExpectedRevision);
      const position = result.position ? Number(result.position.commit) : await this.positionOfRevision(stream, nextExpectedRevision);
      return { nextExpectedRevision, position };
    } catch (error) {
      if (error instanceof EsdbWrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedVersionError(stream, expectedRevision, typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream');
      }
      throw error;
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const fromRevision = options.fromRevision ?? 0;
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: fromRevision > 0 ? BigInt(fromRevision) : START })) {
        if (resolved.event) events.push(toRecorded(resolved.event, positionOf(resolved.event.position, 'read', resolved.event)));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): AllSubscription {
    this.assertOpen();
    const { fromPosition, streamPrefixes } = options;
    const subscription = this.client.subscribeToAll({
      // Resuming needs a `{ commit, prepare }` pair; see positionOf for why one number is both.
      fromPosition: fromPosition === undefined ? START : { commit: BigInt(fromPosition), prepare: BigInt(fromPosition) },
      filter: streamPrefixes && streamPrefixes.length > 0 ? streamNameFilter({ prefixes: streamPrefixes }) : excludeSystemEvents(),
    });
    const wrapped = new EventStoreDbAllSubscription(subscription, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(wrapped);
    return wrapped;
  }

  /**
   * The last event of `$all` a subscription of this adapter would deliver: system events (`$`
   * streams and types, which the server writes on its own, e.g. projection links and stats) are
   * passed over, paging backwards until a user event or the start of the log. Its position follows
   * positionOf as a subscription reads it, so an explicit-transaction event there is refused
   * (ExplicitTransactionEventError), as a subscription would refuse it, rather than reported as a
   * position no subscriber can reach.
   */
  async headPosition(): Promise<number | null> {
    this.assertOpen();
    let from: ReadPosition = END;
    for (;;) {
      let head: EsdbRecordedEvent | undefined;
      let oldest: Position | undefined;
      let received = 0;
      // Each page is read to its end even once the head is found: see isReady.
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE_SIZE })) {
        received++;
        const event = resolved.event;
        if (!event) continue;
        oldest = event.position;
        if (!head && !isSystem(event)) head = event;
      }
      if (head) return positionOf(head.position, 'subscription', head);
      if (received < HEAD_PAGE_SIZE) return null;
      if (!oldest) throw new Error('a backwards read of $all returned a full page without a positioned event');
      // A backwards read from an event's position returns the events before it. (From an event of an
      // explicit transaction, which only the legacy TCP API writes, the server also leaves out the
      // transaction's earlier events: its commit record ends after that position.)
      from = oldest;
    }
  }

  async isReady(): Promise<boolean> {
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
    });
    // Reading a stream that does not exist is the cheapest round trip that needs a working node.
    const probe = (async () => {
      try {
        // Drained, not abandoned: dispose() waits for every gRPC stream the client opened to finish.
        for await (const _ of this.client.readStream(READINESS_PROBE_STREAM, { maxCount: 1 })) continue;
        return true;
      } catch (error) {
        return error instanceof StreamNotFoundError;
      }
    })();
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
    // dispose() waits for every stream the client ever opened to finish; one stuck stream must
    // not turn a shutdown into a hang.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.client.dispose(), new Promise<void>((resolve) => (timer = setTimeout(resolve, DISPOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }

  /** Servers may omit the position on an idempotent replay; the stored event still knows it. */
  private async positionOfRevision(stream: string, revision: number): Promise<number> {
    let position = -1;
    // Read to the end (one event) rather than returning early: see isReady.
    for await (const resolved of this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 })) {
      if (resolved.event && position === -1) position = positionOf(resolved.event.position, 'read', resolved.event);
    }
    return position;
  }
}

type EsdbSubscription = ReturnType<EventStoreDBClient['subscribeToAll']>;

const STOPPED = Symbol('stopped');

class EventStoreDbAllSubscription implements AllSubscription {
  private stopped = false;
  private started = false;
  private readonly stop: Promise<typeof STOPPED>;
  private signalStop: () => void = () => undefined;

  constructor(
    private readonly subscription: EsdbSubscription,
    private readonly onStop: (subscription: EventStoreDbAllSubscription) => void,
  ) {
    this.stop = new Promise((resolve) => {
      this.signalStop = () => resolve(STOPPED);
    });
    // Errors surface through iteration; without a listener an error before the first next() would crash the process.
    subscription.on('error', () => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.started) throw new Error('a subscription can be iterated only once');
    this.started = true;
    return this.events();
  }

  async unsubscribe(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.signalStop();
    this.onStop(this);
    await this.subscription.unsubscribe();
    // A cancelled gRPC call does not end the piped stream; ending it lets pending reads settle.
    this.subscription.destroy();
  }

  private async *events(): AsyncGenerator<RecordedEvent> {
    const iterator: AsyncIterator<AllStreamResolvedEvent> = this.subscription[Symbol.asyncIterator]();
    try {
      while (!this.stopped) {
        const next = await Promise.race([iterator.next(), this.stop]);
        if (next === STOPPED || next.done) return;
        const event = next.value.event;
        if (!event || isSystem(event)) continue;
        yield toRecorded(event, positionOf(event.position, 'subscription', event));
      }
    } finally {
      await this.unsubscribe();
    }
  }
}
