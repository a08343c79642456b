/**
 * The event store port. Semantics follow EventStoreDB: streams with 0-based revisions, appends
 * guarded by an expected revision, idempotent retries by event id, and one global, ordered log
 * that subscribers catch up on from a position.
 */

/** What the caller believes the stream's last revision is. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface EventData<TData = unknown> {
  /** UUID chosen by the writer; retrying an append with the same ids stores the events once. */
  id: string;
  type: string;
  data: TData;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent<TData = unknown> {
  id: string;
  type: string;
  data: TData;
  metadata: Record<string, unknown>;
  streamName: string;
  /** 0-based revision of this event inside its stream. */
  revision: number;
  /**
   * Position in the global log. Strictly increasing in subscription order; a subscriber stores
   * the last position it applied and resumes after it.
   */
  position: number;
  createdAt: Date;
}

export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  /**
   * Position of the stream's event at `expectedRevision`, taken with that revision from one
   * recorded event or append result (e.g. a projection's state of the stream). An adapter that
   * would otherwise look the stream's head up before appending may append at it directly. The
   * concurrency check stays the server's: when the stream has moved past that event, the append
   * fails or retries as without it, after the look-up it spared. Only with a numeric
   * `expectedRevision`; a position from another event than the one at that revision is a bug.
   */
  lastPosition?: number;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextExpectedRevision: number;
  /** Global position of the commit. */
  position: number;
}

export interface ReadStreamOptions {
  /** First revision to read, inclusive. Default 0. */
  fromRevision?: number;
}

export interface SubscribeToAllOptions {
  /** Deliver events strictly after this position; omit to start at the beginning of the log. */
  fromPosition?: number;
  /** Only streams whose name starts with one of these prefixes. */
  streamPrefixes?: string[];
}

/** An ordered subscription: iterate it to receive events, catching up then continuing live. */
export interface AllSubscription extends AsyncIterable<RecordedEvent> {
  unsubscribe(): Promise<void>;
}

export interface EventStore {
  append(stream: string, events: EventData[], options: AppendOptions): Promise<AppendResult>;
  /** Events of one stream in revision order; an empty array for a stream that does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options?: SubscribeToAllOptions): AllSubscription;
  /**
   * Position of the last event of the global log, null while it is empty: a subscriber that has
   * applied this position has caught up with everything appended before the call.
   */
  headPosition(): Promise<number | null>;
  /** Cheap readiness probe for health checks. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or 'no_stream'. */
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected version on stream "${streamName}": expected ${String(expected)}, actual ${String(actual)}`);
  }
}
