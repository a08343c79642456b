import { ensureStream } from './ensure-stream';
import { whileJetStreamSettles } from './while-jetstream-settles';
import {
  connect,
  DeliverPolicy,
  headers as createHeaders,
  nanos,
  NatsError,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type MsgHdrs,
  type NatsConnection,
  type OrderedConsumerOptions,
} from 'nats';
import type { YieldToEventLoop } from '@immo/runtime';
import { assertValidAppend, expectedAsNumber } from '../append-validation';
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
import {
  commitMessageId,
  decodePosition,
  encodePosition,
  FIRST_REVISION_HEADER,
  LAST_REVISION_HEADER,
  parseCommitBody,
  POSITIONS_PER_MESSAGE,
  streamFromSubject,
  subjectForStream,
  type CommitBody,
  type CommitEventBody,
} from './jetstream-codec';

export interface JetStreamEventStoreOptions {
  /** Server URL(s) to connect to, or a connection owned (and closed) by the caller. */
  servers: string | NatsConnection;
  /** JetStream stream holding every commit. Default `EVENTS`. */
  streamName?: string;
  /** Subject prefix of the JetStream stream; commits go to `<prefix>.<encoded stream name>`. Default `events`. */
  subjectPrefix?: string;
  /** How long JetStream remembers message ids for dedupe. Default two minutes. */
  duplicateWindowMs?: number;
  /** Copies of the stream in a NATS cluster. Default 1. */
  replicas?: number;
  /** Asked after each stream-head look-up, before its commit is decoded and appended to (see `lastCommit`). */
  yieldToEventLoop?: YieldToEventLoop;
}

const DEFAULT_STREAM_NAME = 'EVENTS';
const DEFAULT_SUBJECT_PREFIX = 'events';
const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60_000;
/** Each lost race against another writer costs one retry; beyond this the stream is too hot to be sane. */
const MAX_APPEND_ATTEMPTS = 25;
/** Stream heads remembered for look-up-free appends (least recently written evicted first). */
const KNOWN_HEADS_LIMIT = 50_000;

interface KnownHead {
  /** JetStream sequence of the stream's last commit (0: no commit). */
  sequence: number;
  lastRevision: number;
}

// JetStream API error codes (nats-server `errors.json`).
const ERR_NO_MESSAGE_FOUND = 10037;
const ERR_WRONG_LAST_SEQUENCE = 10071;

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof NatsError ? error.api_error?.err_code : undefined;
}

/** One decoded JetStream message: a commit of consecutive events of one stream. */
interface StoredCommit {
  sequence: number;
  streamName: string;
  firstRevision: number;
  body: CommitBody;
}

function lastRevisionOf(commit: StoredCommit): number {
  return commit.firstRevision + commit.body.events.length - 1;
}

/** The append result of a commit: its last revision and the position of its last event. */
function resultOf(commit: StoredCommit): AppendResult {
  return {
    nextExpectedRevision: lastRevisionOf(commit),
    position: encodePosition(commit.sequence, commit.body.events.length - 1),
  };
}

function toRecorded(commit: StoredCommit, index: number, event: CommitEventBody): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata ?? {},
    streamName: commit.streamName,
    revision: commit.firstRevision + index,
    position: encodePosition(commit.sequence, index),
    createdAt: new Date(commit.body.createdAt),
  };
}

function sameIds(commit: StoredCommit, events: readonly EventData[]): boolean {
  return commit.body.events.length === events.length && commit.body.events.every((stored, i) => stored.id === events[i]?.id);
}

/**
 * The head a caller says the stream has: its last event's revision and position (see
 * `AppendOptions.lastPosition`). Without it, an append at a head this instance has not met (after
 * a restart, or beyond the heads it remembers) first fetched and decoded the stream's last commit:
 * a round trip, and a parse of the whole commit, for each recrawl of a known advert.
 */
function headAt(expectedRevision: ExpectedRevision, lastPosition: number | undefined): KnownHead | undefined {
  // A commit's sequence is 1 or more: a smaller position is not one of its events.
  if (typeof expectedRevision !== 'number' || lastPosition === undefined || !Number.isSafeInteger(lastPosition) || lastPosition < POSITIONS_PER_MESSAGE) return undefined;
  return { sequence: decodePosition(lastPosition).sequence, lastRevision: expectedRevision };
}

/**
 * Event store on NATS JetStream: one JetStream stream, one subject per event stream, one message
 * per commit. Optimistic concurrency rides on `Nats-Expected-Last-Subject-Sequence`, so two writers
 * racing for the same revision are decided by the server, not by a read-then-write in the client.
 *
 * - Positions: `sequence * 1000 + index in commit` (see jetstream-codec); an append reports the
 *   position of its last event, so "seen position ≥ result.position" means "seen the whole commit".
 * - Limits: 1000 events per append, and one commit must fit NATS `max_payload` (1 MB by default).
 * - `createdAt` is the writer's clock at commit time, identical for every event of a commit.
 * - Reading revisions older than the stream's last commit scans the stream's subject (JetStream
 *   has no revision index), so very long streams read back slower than short ones.
 */
export class JetStreamEventStore implements EventStore {
  private readonly knownHeads = new Map<string, KnownHead>();
  private readonly subscriptions = new Set<JetStreamAllSubscription>();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly ownsConnection: boolean,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    readonly streamName: string,
    readonly subjectPrefix: string,
    private readonly yieldToEventLoop: YieldToEventLoop,
  ) {}

  /** Connects (unless given a connection) and creates the JetStream stream when it is missing. */
  static async connect(options: JetStreamEventStoreOptions): Promise<JetStreamEventStore> {
    const streamName = options.streamName ?? DEFAULT_STREAM_NAME;
    const subjectPrefix = options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
    const ownsConnection = typeof options.servers === 'string';
    const nc = typeof options.servers === 'string' ? await connect({ servers: options.servers, name: `event-store:${streamName}` }) : options.servers;
    try {
      const jsm = await whileJetStreamSettles(() => nc.jetstreamManager());
      await ensureStream(jsm, {
        name: streamName,
        subjects: [`${subjectPrefix}.>`],
        storage: StorageType.File,
        duplicate_window: nanos(options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
        num_replicas: options.replicas ?? 1,
      });
      return new JetStreamEventStore(nc, ownsConnection, jsm, nc.jetstream(), streamName, subjectPrefix, options.yieldToEventLoop ?? (() => undefined));
    } catch (error) {
      if (ownsConnection) await nc.close();
      throw error;
    }
  }

  async append(stream: string, events: EventData[], options: AppendOptions): Promise<AppendResult> {
    const { expectedRevision, lastPosition } = options;
    assertValidAppend(stream, events, expectedRevision, POSITIONS_PER_MESSAGE);
    this.assertOpen();
    const subject = subjectForStream(this.subjectPrefix, stream);
    const msgID = commitMessageId(stream, events.map((e) => e.id));
    const body: CommitBody = {
      createdAt: new Date().toISOString(),
      events: events.map((e) => ({ id: e.id, type: e.type, data: e.data, ...(e.metadata ? { metadata: e.metadata } : {}) })),
    };
    const payload = Buffer.from(JSON.stringify(body), 'utf8');

    for (let attempt = 1; ; attempt++) {
      // First try at a head this instance already knows, or the caller does: no look-up round trip.
      // The server still checks the subject's last sequence, so a stale guess only costs the slower
      // second attempt.
      const known = attempt === 1 ? (this.knownHeadFor(subject, expectedRevision) ?? headAt(expectedRevision, lastPosition)) : undefined;
      const head = known ? undefined : await this.lastCommit(subject, stream);
      const current = known ? known.lastRevision : head ? lastRevisionOf(head) : -1;
      const headSequence = known ? known.sequence : (head?.sequence ?? 0);
      if (known) {
        // Checked by the server through `lastSubjectSequence`.
      } else if (expectedRevision === 'any') {
        // A retried `any` append whose commit is still the stream head is recognised here; older
        // ones only inside the duplicate window (there is no id index to look further back).
        if (head && sameIds(head, events)) return resultOf(head);
      } else if (current !== expectedAsNumber(expectedRevision)) {
        const replayed = await this.findRetriedCommit(subject, stream, head, expectedAsNumber(expectedRevision), events);
        if (replayed) return replayed;
        throw new WrongExpectedVersionError(stream, expectedRevision, head ? current : 'no_stream');
      }

      const headers: MsgHdrs = createHeaders();
      headers.set(FIRST_REVISION_HEADER, String(current + 1));
      headers.set(LAST_REVISION_HEADER, String(current + events.length));
      try {
        const ack = await this.js.publish(subject, payload, { msgID, headers, expect: { lastSubjectSequence: headSequence } });
        if (!ack.duplicate) {
          this.rememberHead(subject, ack.seq, current + events.length);
          return { nextExpectedRevision: current + events.length, position: encodePosition(ack.seq, events.length - 1) };
        }
        // Same stream and ids already stored inside the dedupe window: answer with that commit.
        const original = await this.commitAt(ack.seq);
        return resultOf(original);
      } catch (error) {
        // Someone else appended between our read and our publish. Go round again: the fresh head
        // either turns this into a WrongExpectedVersionError, an idempotent replay, or (for `any`)
        // a new attempt at the next revision.
        if (apiErrorCode(error) !== ERR_WRONG_LAST_SEQUENCE) throw error;
        this.knownHeads.delete(subject);
        if (attempt >= MAX_APPEND_ATTEMPTS) throw new Error(`append to "${stream}" lost the race ${attempt} times in a row; giving up`);
      }
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const fromRevision = options.fromRevision ?? 0;
    const subject = subjectForStream(this.subjectPrefix, stream);
    const head = await this.lastCommit(subject, stream);
    if (!head) return [];
    const commits = await this.commitsOf(subject, stream, head, fromRevision);
    const events: RecordedEvent[] = [];
    for (const commit of commits) {
      commit.body.events.forEach((event, index) => {
        if (commit.firstRevision + index >= fromRevision) events.push(toRecorded(commit, index, event));
      });
    }
    return events;
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): AllSubscription {
    this.assertOpen();
    const subscription = new JetStreamAllSubscription(this.js, this.streamName, this.subjectPrefix, options, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<number | null> {
    const info = await this.jsm.streams.info(this.streamName);
    const last = info.state.last_seq;
    if (!last || info.state.messages === 0) return null;
    const commit = await this.commitAt(last);
    return encodePosition(commit.sequence, commit.body.events.length - 1);
  }

  async isReady(): Promise<boolean> {
    if (this.closed || this.nc.isClosed()) return false;
    try {
      await this.jsm.streams.info(this.streamName);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
    if (this.ownsConnection && !this.nc.isClosed()) await this.nc.drain();
  }

  /** The head to append at without a look-up, when the caller's expectation matches what we know. */
  private knownHeadFor(subject: string, expected: ExpectedRevision): KnownHead | undefined {
    if (expected === 'any') return undefined;
    const known = this.knownHeads.get(subject);
    if (expected === 'no_stream') return known ? undefined : { sequence: 0, lastRevision: -1 };
    return known && known.lastRevision === expected ? known : undefined;
  }

  private rememberHead(subject: string, sequence: number, lastRevision: number): void {
    this.knownHeads.delete(subject);
    this.knownHeads.set(subject, { sequence, lastRevision });
    if (this.knownHeads.size > KNOWN_HEADS_LIMIT) {
      const oldest = this.knownHeads.keys().next().value;
      if (oldest !== undefined) this.knownHeads.delete(oldest);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }

  private decode(subject: string, sequence: number, data: Uint8Array, headers: MsgHdrs | undefined, expectedStream?: string): StoredCommit {
    const streamName = expectedStream ?? streamFromSubject(this.subjectPrefix, subject);
    const firstRevision = Number(headers?.get(FIRST_REVISION_HEADER));
    if (streamName === undefined || !Number.isSafeInteger(firstRevision)) throw new Error(`message ${sequence} on ${subject} is not an event-store commit`);
    return { sequence, streamName, firstRevision, body: parseCommitBody(data) };
  }

  /**
   * The stream's last commit. Its answer waits for a turn of the event loop when the service's
   * slice says so (spent, or others waiting for theirs): after a restart every append to a known
   * advert looks its head up first, the answers of hundreds of look-ups arrive together, and each
   * one decoded its commit and published the next (whose own answer libuv read within the same
   * poll) without a turn in between, 116 to 216 ms at 200,000 properties. Waiting here, before the
   * decoding and the publish, ends that request-and-answer ping-pong at the slice's budget.
   */
  private async lastCommit(subject: string, stream: string): Promise<StoredCommit | undefined> {
    try {
      const message = await this.jsm.streams.getMessage(this.streamName, { last_by_subj: subject });
      const due = this.yieldToEventLoop();
      if (due) await due;
      return this.decode(message.subject, message.seq, message.data, message.header, stream);
    } catch (error) {
      if (apiErrorCode(error) === ERR_NO_MESSAGE_FOUND) return undefined;
      throw error;
    }
  }

  private async commitAt(sequence: number): Promise<StoredCommit> {
    const message = await this.jsm.streams.getMessage(this.streamName, { seq: sequence });
    return this.decode(message.subject, message.seq, message.data, message.header);
  }

  /**
   * Commits of one stream up to `head`, skipping those entirely before `fromRevision`. Revisions
   * are not indexed by JetStream, so anything older than the head needs a scan of the subject.
   */
  private async commitsOf(subject: string, stream: string, head: StoredCommit, fromRevision: number): Promise<StoredCommit[]> {
    if (head.firstRevision <= fromRevision) return [head];
    const consumer = await this.js.consumers.get(this.streamName, fromSequence(1, subject));
    const messages = await consumer.consume();
    const commits: StoredCommit[] = [];
    try {
      for await (const message of messages) {
        const commit = this.decode(message.subject, message.seq, message.data, message.headers, stream);
        if (lastRevisionOf(commit) >= fromRevision) commits.push(commit);
        // Stop at the head we looked up first: later commits are not part of this read.
        if (message.seq >= head.sequence || message.info.pending === 0) break;
      }
    } finally {
      messages.stop();
    }
    return commits;
  }

  /** EventStoreDB's idempotent append: the commit right after `expected` holding exactly these ids. */
  private async findRetriedCommit(subject: string, stream: string, head: StoredCommit | undefined, expected: number, events: readonly EventData[]): Promise<AppendResult | undefined> {
    if (!head || lastRevisionOf(head) <= expected) return undefined;
    const commits = await this.commitsOf(subject, stream, head, expected + 1);
    const candidate = commits.find((c) => c.firstRevision === expected + 1);
    return candidate && sameIds(candidate, events) ? resultOf(candidate) : undefined;
  }
}

/**
 * Ordered-consumer options starting at a stream sequence. Always `StartSequence`: the client adds
 * `opt_start_seq` to every ordered consumer it creates, which the server refuses next to
 * `DeliverPolicy.All` (and the client then keeps retrying instead of failing).
 */
function fromSequence(sequence: number, filterSubject: string): Partial<OrderedConsumerOptions> {
  // A string filter is sent as `filter_subject`, understood by servers older than 2.10 too.
  return { filterSubjects: filterSubject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(sequence, 1) };
}

/**
 * `$all` for JetStream: an ordered consumer over `<prefix>.>` (the server re-creates it on gaps,
 * so delivery stays gap-free and in sequence order). Stream-prefix filtering happens here, after
 * decoding the subject, because a string prefix of a stream name is not a subject wildcard.
 */
class JetStreamAllSubscription implements AllSubscription {
  private messages: ConsumerMessages | undefined;
  private stopped = false;
  private started = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly streamName: string,
    private readonly subjectPrefix: string,
    private readonly options: SubscribeToAllOptions,
    private readonly onStop: (subscription: JetStreamAllSubscription) => void,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.started) throw new Error('a subscription can be iterated only once');
    this.started = true;
    return this.events();
  }

  async unsubscribe(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.messages?.stop();
    this.onStop(this);
  }

  private async *events(): AsyncGenerator<RecordedEvent> {
    const { fromPosition, streamPrefixes } = this.options;
    const after = fromPosition === undefined ? undefined : decodePosition(Math.max(fromPosition, 0));
    try {
      if (this.stopped) return;
      // Resume inside the commit holding `fromPosition`: its earlier events are skipped below.
      const consumer = await this.js.consumers.get(this.streamName, fromSequence(after?.sequence ?? 1, `${this.subjectPrefix}.>`));
      if (this.stopped) return;
      const messages = await consumer.consume();
      this.messages = messages;
      if (this.stopped) {
        messages.stop();
        return;
      }
      for await (const message of messages) {
        const streamName = streamFromSubject(this.subjectPrefix, message.subject);
        if (streamName === undefined) continue;
        if (streamPrefixes && streamPrefixes.length > 0 && !streamPrefixes.some((p) => streamName.startsWith(p))) continue;
        const firstRevision = Number(message.headers?.get(FIRST_REVISION_HEADER));
        if (!Number.isSafeInteger(firstRevision)) continue;
        const commit: StoredCommit = { sequence: message.seq, streamName, firstRevision, body: parseCommitBody(message.data) };
        for (const [index, event] of commit.body.events.entries()) {
          if (after && (commit.sequence < after.sequence || (commit.sequence === after.sequence && index <= after.indexInCommit))) continue;
          yield toRecorded(commit, index, event);
          if (this.stopped) return;
        }
      }
    } catch (error) {
      // Closing the store (or unsubscribing) while the consumer is being set up tears the request
      // down underneath us; that is the requested end of the subscription, not a failure.
      if (!this.stopped) throw error;
    } finally {
      await this.unsubscribe();
    }
  }
}
