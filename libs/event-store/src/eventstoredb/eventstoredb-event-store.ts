import {
  ANY,
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
  type ResolvedEvent,
} from '@eventstore/db-client';
import { assertValidAppend } from '../append-validation';
import {
  WrongExpectedVersionError,
  type AllSubscription,
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

type EsdbRecordedEvent = NonNullable<ResolvedEvent['event']>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return BigInt(expected);
}

function isSystem(event: EsdbRecordedEvent): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

/**
 * Positions: EventStoreDB gives every event a `{ commit, prepare }` pair in its transaction log.
 * Since 20.x appends are implicit transactions whose events each carry commit === prepare (their
 * own log position), so the commit position alone identifies an event and is what we expose.
 */
function toRecorded(event: EsdbRecordedEvent, fallbackPosition: bigint | undefined): RecordedEvent {
  // Stream reads only carry positions from server 22.6 on; -1 marks "unknown" rather than guessing.
  const position = event.position?.commit ?? fallbackPosition;
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: isRecord(event.metadata) ? event.metadata : {},
    streamName: event.streamId,
    revision: Number(event.revision),
    position: position === undefined ? -1 : Number(position),
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

  async append(stream: string, events: EventData[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
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
        if (resolved.event) events.push(toRecorded(resolved.event, resolved.commitPosition));
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
      // Resuming needs a `{ commit, prepare }` pair; see toRecorded for why commit serves as both.
      fromPosition: fromPosition === undefined ? START : { commit: BigInt(fromPosition), prepare: BigInt(fromPosition) },
      filter: streamPrefixes && streamPrefixes.length > 0 ? streamNameFilter({ prefixes: streamPrefixes }) : excludeSystemEvents(),
    });
    const wrapped = new EventStoreDbAllSubscription(subscription, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(wrapped);
    return wrapped;
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
    let position: bigint | undefined;
    // Read to the end (one event) rather than returning early: see isReady.
    for await (const resolved of this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 })) {
      position ??= resolved.event?.position?.commit ?? resolved.commitPosition;
    }
    return position === undefined ? -1 : Number(position);
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
        yield toRecorded(event, next.value.commitPosition);
      }
    } finally {
      await this.unsubscribe();
    }
  }
}
