/**
 * TEST DOUBLE — an in-memory stand-in for an EventStoreDB node, speaking the real gRPC protocol
 * through the client's own generated service definitions. See README.md in this folder for what
 * it covers and what it leaves out. Never use it outside tests.
 */
import { randomUUID } from 'node:crypto';
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';
import {
  AllStreamPosition,
  Empty,
  StreamIdentifier,
  UUID,
  WrongExpectedVersion as WrongExpectedVersionDetails,
} from '@eventstore/db-client/generated/shared_pb';
import { Code } from '@eventstore/db-client/generated/code_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb';
import { AppendReq, AppendResp, BatchAppendReq, BatchAppendResp, ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import {
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerReadableStream,
  type ServerUnaryCall,
  type ServerWritableStream,
} from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { InMemoryLog, type AppendOutcome, type Expectation, type ProposedEvent, type StoredEvent } from './in-memory-log';

export interface EventStoreDbFakeOptions {
  /**
   * Advertise Streams.BatchAppend in ServerFeatures (as 21.x+ servers do), which makes the client
   * append through BatchAppend. With false the client falls back to the older Streams.Append.
   * Default true.
   */
  batchAppend?: boolean;
  /**
   * Include the log position when answering a retried (idempotent) append. Servers before 22.x
   * answer such replays without one; false mimics them. Default true.
   */
  positionOnReplay?: boolean;
}

/** An event to write through {@link RunningEventStoreDbFake.commitExplicitTransaction}. */
export interface ExplicitTransactionEvent {
  id?: string;
  type: string;
  data: unknown;
}

export interface RunningEventStoreDbFake {
  connectionString: string;
  /**
   * Writes what an explicit transaction of the legacy TCP API leaves in a real log (the gRPC API
   * has no way to write one): the events share their commit position, the one of the commit
   * record written after them, and keep distinct prepare positions. Returns the stored events'
   * ids and positions.
   */
  commitExplicitTransaction(stream: string, events: readonly ExplicitTransactionEvent[]): Array<{ id: string; commit: number; prepare: number }>;
  stop(): Promise<void>;
}

const FAKE_SERVER_VERSION = '23.10.0-test-double';

function streamNameOf(identifier: StreamIdentifier | undefined): string {
  return identifier ? Buffer.from(identifier.getStreamName_asU8()).toString('utf8') : '';
}

function identifierOf(streamName: string): StreamIdentifier {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Buffer.from(streamName, 'utf8'));
  return identifier;
}

/** Accepts both UUID encodings the protocol allows. */
function uuidToString(uuid: UUID | undefined): string {
  if (!uuid) return '';
  const structured = uuid.getStructured();
  if (!structured) return uuid.getString();
  const bytes = Buffer.alloc(16);
  bytes.writeBigInt64BE(BigInt(structured.getMostSignificantBits()), 0);
  bytes.writeBigInt64BE(BigInt(structured.getLeastSignificantBits()), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function stringToUuid(id: string, structured: boolean): UUID {
  const uuid = new UUID();
  if (!structured) {
    uuid.setString(id);
    return uuid;
  }
  const bytes = Buffer.from(id.replace(/-/g, ''), 'hex');
  const parts = new UUID.Structured();
  parts.setMostSignificantBits(bytes.readBigInt64BE(0).toString());
  parts.setLeastSignificantBits(bytes.readBigInt64BE(8).toString());
  uuid.setStructured(parts);
  return uuid;
}

function toProposed(message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedEvent {
  const metadata = message.getMetadataMap();
  return {
    id: uuidToString(message.getId()),
    type: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

/** UInt64.MaxValue: what the server sends where it has no `$all` position for an event. */
const NO_POSITION = '18446744073709551615';

/**
 * `$all` reads carry every event's `{ commit, prepare }`. Stream reads carry them (from 22.6 on)
 * only for events outside explicit transactions: the server cannot cheaply find a transaction's
 * commit from a stream's index, so those events come with "no position".
 */
function toRecordedEvent(event: StoredEvent, structuredIds: boolean, source: '$all' | 'stream'): ReadResp.ReadEvent {
  const positioned = source === '$all' || event.commit === event.prepare;
  const record = new ReadResp.ReadEvent.RecordedEvent();
  record.setId(stringToUuid(event.id, structuredIds));
  record.setStreamIdentifier(identifierOf(event.streamName));
  record.setStreamRevision(String(event.revision));
  record.setPreparePosition(positioned ? String(event.prepare) : NO_POSITION);
  record.setCommitPosition(positioned ? String(event.commit) : NO_POSITION);
  record.getMetadataMap().set('type', event.type);
  record.getMetadataMap().set('content-type', event.contentType);
  record.getMetadataMap().set('created', event.createdTicks);
  record.setData(event.data);
  record.setCustomMetadata(event.customMetadata);
  const readEvent = new ReadResp.ReadEvent();
  readEvent.setEvent(record);
  if (positioned) readEvent.setCommitPosition(String(event.commit));
  else readEvent.setNoPosition(new Empty());
  return readEvent;
}

function eventResponse(event: StoredEvent, structuredIds: boolean, source: '$all' | 'stream'): ReadResp {
  const response = new ReadResp();
  response.setEvent(toRecordedEvent(event, structuredIds, source));
  return response;
}

/** Resolves once the call can take more data, so a slow reader never makes us buffer the whole log. */
async function writeWithBackpressure(call: ServerWritableStream<ReadReq, ReadResp>, response: ReadResp): Promise<void> {
  if (call.write(response)) return;
  // Plain listeners, all removed on the first event: `events.once` would leave the losers (and an
  // 'error' listener each) attached, piling up over a long read.
  await new Promise<void>((resolve) => {
    const settle = () => {
      for (const event of ['drain', 'cancelled', 'close']) call.off(event, settle);
      resolve();
    };
    for (const event of ['drain', 'cancelled', 'close']) call.on(event, settle);
  });
}

function appendExpectation(options: AppendReq.Options): Expectation | undefined {
  switch (options.getExpectedStreamRevisionCase()) {
    case AppendReq.Options.ExpectedStreamRevisionCase.REVISION:
      return { kind: 'revision', revision: Number(options.getRevision()) };
    case AppendReq.Options.ExpectedStreamRevisionCase.NO_STREAM:
      return { kind: 'no_stream' };
    case AppendReq.Options.ExpectedStreamRevisionCase.ANY:
      return { kind: 'any' };
    case AppendReq.Options.ExpectedStreamRevisionCase.STREAM_EXISTS:
      return { kind: 'stream_exists' };
    default:
      return undefined;
  }
}

function batchExpectation(options: BatchAppendReq.Options): Expectation | undefined {
  switch (options.getExpectedStreamPositionCase()) {
    case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_POSITION:
      return { kind: 'revision', revision: Number(options.getStreamPosition()) };
    case BatchAppendReq.Options.ExpectedStreamPositionCase.NO_STREAM:
      return { kind: 'no_stream' };
    case BatchAppendReq.Options.ExpectedStreamPositionCase.ANY:
      return { kind: 'any' };
    case BatchAppendReq.Options.ExpectedStreamPositionCase.STREAM_EXISTS:
      return { kind: 'stream_exists' };
    default:
      return undefined;
  }
}

function appendResponse(outcome: AppendOutcome, expectation: Expectation): AppendResp {
  const response = new AppendResp();
  if (outcome.kind === 'success') {
    const success = new AppendResp.Success();
    if (outcome.currentRevision === undefined) success.setNoStream(new Empty());
    else success.setCurrentRevision(String(outcome.currentRevision));
    if (outcome.position === undefined) success.setNoPosition(new Empty());
    else {
      const position = new AppendResp.Position();
      position.setCommitPosition(String(outcome.position));
      position.setPreparePosition(String(outcome.position));
      success.setPosition(position);
    }
    response.setSuccess(success);
    return response;
  }
  const wrong = new AppendResp.WrongExpectedVersion();
  if (outcome.currentRevision === undefined) wrong.setCurrentNoStream(new Empty());
  else wrong.setCurrentRevision(String(outcome.currentRevision));
  switch (expectation.kind) {
    case 'revision':
      wrong.setExpectedRevision(String(expectation.revision));
      break;
    case 'no_stream':
      wrong.setExpectedNoStream(new Empty());
      break;
    case 'any':
      wrong.setExpectedAny(new Empty());
      break;
    case 'stream_exists':
      wrong.setExpectedStreamExists(new Empty());
      break;
  }
  response.setWrongExpectedVersion(wrong);
  return response;
}

function batchAppendResponse(correlationId: UUID | undefined, streamName: string, outcome: AppendOutcome, expectation: Expectation): BatchAppendResp {
  const response = new BatchAppendResp();
  response.setCorrelationId(correlationId);
  response.setStreamIdentifier(identifierOf(streamName));
  switch (expectation.kind) {
    case 'revision':
      response.setStreamPosition(String(expectation.revision));
      break;
    case 'no_stream':
      response.setNoStream(new ProtobufEmpty());
      break;
    case 'any':
      response.setAny(new ProtobufEmpty());
      break;
    case 'stream_exists':
      response.setStreamExists(new ProtobufEmpty());
      break;
  }
  if (outcome.kind === 'success') {
    const success = new BatchAppendResp.Success();
    if (outcome.currentRevision === undefined) success.setNoStream(new ProtobufEmpty());
    else success.setCurrentRevision(String(outcome.currentRevision));
    if (outcome.position === undefined) success.setNoPosition(new ProtobufEmpty());
    else {
      const position = new AllStreamPosition();
      position.setCommitPosition(String(outcome.position));
      position.setPreparePosition(String(outcome.position));
      success.setPosition(position);
    }
    response.setSuccess(success);
    return response;
  }
  // BatchAppend reports failures as a google.rpc.Status whose details pack the shared message.
  const details = new WrongExpectedVersionDetails();
  if (outcome.currentRevision === undefined) details.setCurrentNoStream(new ProtobufEmpty());
  else details.setCurrentStreamRevision(String(outcome.currentRevision));
  switch (expectation.kind) {
    case 'revision':
      details.setExpectedStreamPosition(String(expectation.revision));
      break;
    case 'no_stream':
      details.setExpectedNoStream(new ProtobufEmpty());
      break;
    case 'any':
      details.setExpectedAny(new ProtobufEmpty());
      break;
    case 'stream_exists':
      details.setExpectedStreamExists(new ProtobufEmpty());
      break;
  }
  const packed = new Any();
  packed.pack(details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  const error = new Status();
  error.setCode(Code.FAILED_PRECONDITION);
  error.setMessage('WrongExpectedVersion');
  error.setDetails(packed);
  response.setError(error);
  return response;
}

function streamFilter(options: ReadReq.Options): (event: StoredEvent) => boolean {
  const filter = options.getFilter();
  if (!filter) return () => true;
  const expression = filter.getStreamIdentifier() ?? filter.getEventType();
  if (!expression) return () => true;
  const field = filter.hasStreamIdentifier() ? (e: StoredEvent) => e.streamName : (e: StoredEvent) => e.type;
  const prefixes = expression.getPrefixList();
  const regex = expression.getRegex();
  if (prefixes.length > 0) return (e) => prefixes.some((p) => field(e).startsWith(p));
  if (regex) {
    const pattern = new RegExp(regex);
    return (e) => pattern.test(field(e));
  }
  return () => true;
}

class EventStoreDbFake {
  private readonly log = new InMemoryLog();
  private readonly closers = new Set<() => void>();

  constructor(private readonly options: Required<EventStoreDbFakeOptions>) {}

  private withoutReplayPosition(outcome: AppendOutcome): AppendOutcome {
    return outcome.kind === 'success' && outcome.replayed && !this.options.positionOnReplay ? { ...outcome, position: undefined } : outcome;
  }

  getSupportedMethods(_call: ServerUnaryCall<Empty, SupportedMethods>, callback: sendUnaryData<SupportedMethods>): void {
    const methods = ['read', 'append', ...(this.options.batchAppend ? ['batchappend'] : [])].map((name) => {
      const method = new SupportedMethod();
      method.setServiceName('event_store.client.streams.streams');
      method.setMethodName(name);
      return method;
    });
    const supported = new SupportedMethods();
    supported.setMethodsList(methods);
    supported.setEventStoreServerVersion(FAKE_SERVER_VERSION);
    callback(null, supported);
  }

  append(call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>): void {
    let options: AppendReq.Options | undefined;
    const proposed: ProposedEvent[] = [];
    let failed = false;
    const fail = (details: string) => {
      if (failed) return;
      failed = true;
      callback({ code: status.INVALID_ARGUMENT, details });
    };
    call.on('data', (request: AppendReq) => {
      if (!options) {
        options = request.getOptions();
        if (!options) fail('the first Append message must carry options');
        return;
      }
      const message = request.getProposedMessage();
      if (message) proposed.push(toProposed(message));
    });
    call.on('end', () => {
      if (failed) return;
      const expectation = options ? appendExpectation(options) : undefined;
      if (!options || !expectation) return fail('append options without an expected revision');
      // Stored only now, after the client finished sending: a call cut short writes nothing.
      const outcome = this.withoutReplayPosition(this.log.append(streamNameOf(options.getStreamIdentifier()), expectation, proposed));
      callback(null, appendResponse(outcome, expectation));
    });
    call.on('error', () => undefined);
  }

  batchAppend(call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void {
    const pending = new Map<string, { options: BatchAppendReq.Options; events: ProposedEvent[] }>();
    call.on('data', (request: BatchAppendReq) => {
      const correlationId = uuidToString(request.getCorrelationId());
      let batch = pending.get(correlationId);
      if (!batch) {
        const options = request.getOptions();
        if (!options) return call.emit('error', { code: status.INVALID_ARGUMENT, details: 'the first BatchAppend message must carry options' });
        batch = { options, events: [] };
        pending.set(correlationId, batch);
      }
      batch.events.push(...request.getProposedMessagesList().map(toProposed));
      if (!request.getIsFinal()) return;
      pending.delete(correlationId);
      const expectation = batchExpectation(batch.options);
      if (!expectation) return call.emit('error', { code: status.INVALID_ARGUMENT, details: 'batch options without an expected revision' });
      const streamName = streamNameOf(batch.options.getStreamIdentifier());
      const outcome = this.withoutReplayPosition(this.log.append(streamName, expectation, batch.events));
      call.write(batchAppendResponse(request.getCorrelationId(), streamName, outcome, expectation));
    });
    call.on('end', () => call.end());
    call.on('error', () => undefined);
  }

  read(call: ServerWritableStream<ReadReq, ReadResp>): void {
    const options = call.request.getOptions();
    if (!options) return void call.emit('error', { code: status.INVALID_ARGUMENT, details: 'read without options' });
    const structuredIds = options.getUuidOption()?.hasStructured() ?? false;
    const run = options.hasStream()
      ? options.hasSubscription()
        ? Promise.reject(Object.assign(new Error('stream subscriptions are not implemented by the test double'), { code: status.UNIMPLEMENTED }))
        : this.readStream(call, options, structuredIds)
      : options.hasSubscription()
        ? this.subscribeToAll(call, options, structuredIds)
        : this.readAll(call, options, structuredIds);
    run.catch((error: unknown) => {
      const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : status.INTERNAL;
      call.emit('error', { code, details: error instanceof Error ? error.message : String(error) });
    });
  }

  private async readStream(call: ServerWritableStream<ReadReq, ReadResp>, options: ReadReq.Options, structuredIds: boolean): Promise<void> {
    const streamOptions = options.getStream();
    const name = streamNameOf(streamOptions?.getStreamIdentifier());
    const events = this.log.stream(name);
    if (!events) {
      const notFound = new ReadResp.StreamNotFound();
      notFound.setStreamIdentifier(identifierOf(name));
      const response = new ReadResp();
      response.setStreamNotFound(notFound);
      call.write(response);
      call.end();
      return;
    }
    const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    let from: number;
    switch (streamOptions?.getRevisionOptionCase()) {
      case ReadReq.Options.StreamOptions.RevisionOptionCase.REVISION:
        from = Number(streamOptions.getRevision());
        break;
      case ReadReq.Options.StreamOptions.RevisionOptionCase.END:
        from = backwards ? events.length - 1 : events.length;
        break;
      default:
        from = backwards ? events.length - 1 : 0;
    }
    const selected = backwards ? events.slice(0, Math.min(from, events.length - 1) + 1).reverse() : events.slice(from);
    for (const event of selected.slice(0, count)) {
      if (call.cancelled) return;
      await writeWithBackpressure(call, eventResponse(event, structuredIds, 'stream'));
    }
    call.end();
  }

  /**
   * Reads `$all` once, forwards or backwards, from start, end or a `{ commit, prepare }` position,
   * up to `count` events, then ends the call. As on the server, a forwards read includes the event
   * at the position and a backwards read returns only the events before it (see the log's
   * `indexAtOrAfter` and `countEndingBy`); backwards from the end starts with the newest event.
   */
  private async readAll(call: ServerWritableStream<ReadReq, ReadResp>, options: ReadReq.Options, structuredIds: boolean): Promise<void> {
    const all = options.getAll();
    const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
    const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
    // The client's readAll always sends no filter; one sent anyway applies as for a subscription.
    const matches = streamFilter(options);
    // Forwards: the next index to send. Backwards: one past it.
    let cursor: number;
    switch (all?.getAllOptionCase()) {
      case ReadReq.Options.AllOptions.AllOptionCase.POSITION: {
        const position = all.getPosition();
        const from = { commit: Number(position?.getCommitPosition() ?? 0), prepare: Number(position?.getPreparePosition() ?? 0) };
        cursor = backwards ? this.log.countEndingBy(from) : this.log.indexAtOrAfter(from);
        break;
      }
      case ReadReq.Options.AllOptions.AllOptionCase.END:
        cursor = this.log.length;
        break;
      default:
        cursor = 0;
    }
    let sent = 0;
    while (sent < count && (backwards ? cursor > 0 : cursor < this.log.length)) {
      if (call.cancelled) return;
      const event = this.log.at(backwards ? --cursor : cursor++);
      if (!event || !matches(event)) continue;
      sent++;
      await writeWithBackpressure(call, eventResponse(event, structuredIds, '$all'));
    }
    call.end();
  }

  /** Catch-up subscription to $all: history after the start point, `caught_up`, then live events. */
  private async subscribeToAll(call: ServerWritableStream<ReadReq, ReadResp>, options: ReadReq.Options, structuredIds: boolean): Promise<void> {
    const all = options.getAll();
    let cursor: number;
    switch (all?.getAllOptionCase()) {
      case ReadReq.Options.AllOptions.AllOptionCase.POSITION: {
        // Like the server, the `{ commit, prepare }` pair is exclusive: the subscriber has seen that event.
        const position = all.getPosition();
        cursor = this.log.indexAfter({ commit: Number(position?.getCommitPosition() ?? -1), prepare: Number(position?.getPreparePosition() ?? -1) });
        break;
      }
      case ReadReq.Options.AllOptions.AllOptionCase.END:
        cursor = this.log.length;
        break;
      default:
        cursor = 0;
    }
    const matches = streamFilter(options);
    let closed = false;
    let pumping = false;
    let caughtUpSent = false;

    const confirmation = new ReadResp.SubscriptionConfirmation();
    confirmation.setSubscriptionId(randomUUID());
    const confirmed = new ReadResp();
    confirmed.setConfirmation(confirmation);
    call.write(confirmed);

    // Writes everything between the cursor and the end of the log. Appends during an await are
    // picked up by the same loop, so live delivery never skips or reorders.
    const pump = async () => {
      if (pumping || closed) return;
      pumping = true;
      try {
        while (!closed && cursor < this.log.length) {
          const event = this.log.at(cursor++);
          if (event && matches(event)) await writeWithBackpressure(call, eventResponse(event, structuredIds, '$all'));
        }
        if (!caughtUpSent && !closed) {
          caughtUpSent = true;
          const caughtUp = new ReadResp();
          caughtUp.setCaughtUp(new ReadResp.CaughtUp());
          call.write(caughtUp);
        }
      } finally {
        pumping = false;
      }
    };
    const stopListening = this.log.onAppend(() => void pump());
    const close = () => {
      if (closed) return;
      closed = true;
      stopListening();
      this.closers.delete(close);
      if (!call.cancelled) call.end();
    };
    this.closers.add(close);
    call.on('cancelled', close);
    call.on('close', close);
    call.on('error', close);
    await pump();
  }

  commitExplicitTransaction(stream: string, events: readonly ExplicitTransactionEvent[]): Array<{ id: string; commit: number; prepare: number }> {
    const proposed = events.map(
      (event): ProposedEvent => ({
        id: event.id ?? randomUUID(),
        type: event.type,
        contentType: 'application/json',
        data: Buffer.from(JSON.stringify(event.data), 'utf8'),
        customMetadata: new Uint8Array(),
      }),
    );
    return this.log.commitExplicitTransaction(stream, proposed).map(({ id, commit, prepare }) => ({ id, commit, prepare }));
  }

  shutdown(): void {
    for (const close of [...this.closers]) close();
  }
}

/** Starts the test double on a free loopback port. */
export async function startEventStoreDbFake(options: EventStoreDbFakeOptions = {}): Promise<RunningEventStoreDbFake> {
  const fake = new EventStoreDbFake({ batchAppend: options.batchAppend ?? true, positionOnReplay: options.positionOnReplay ?? true });
  const server = new Server();
  server.addService(StreamsService, {
    read: fake.read.bind(fake),
    append: fake.append.bind(fake),
    batchAppend: fake.batchAppend.bind(fake),
  });
  server.addService(ServerFeaturesService, { getSupportedMethods: fake.getSupportedMethods.bind(fake) });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
  });
  return {
    connectionString: `esdb://127.0.0.1:${port}?tls=false`,
    commitExplicitTransaction: (stream, events) => fake.commitExplicitTransaction(stream, events),
    async stop() {
      fake.shutdown();
      // Clients keep idle channels open; a graceful shutdown would wait on them for nothing.
      server.forceShutdown();
    },
  };
}
