/**
 * The storage behind the EventStoreDB test double: one global log plus a per-stream index, with
 * EventStoreDB's rules for expected revisions and idempotent (retried) appends. Test-only code.
 */

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  customMetadata: Uint8Array;
}

/** A `$all` position; the log is ordered by commit, then prepare. */
export interface LogPosition {
  commit: number;
  prepare: number;
}

export interface StoredEvent extends ProposedEvent {
  streamName: string;
  revision: number;
  /**
   * Where the event's own (prepare) record sits in the log. An append is an implicit transaction
   * whose every record commits itself, so its events have `commit === prepare`, one value each;
   * the events of an explicit transaction all carry the position of its commit record, written
   * after them, as their commit position.
   */
  prepare: number;
  commit: number;
  /**
   * Where the event's record and the record that commits it end (the server's post-positions):
   * `prepareEnd` is the start of the next record after the event's own; `commitEnd` equals it for an
   * append, and is the end of the commit record for an explicit transaction. Backwards reads of
   * `$all` compare these, not the start positions, against the position they read back from.
   */
  prepareEnd: number;
  commitEnd: number;
  /** .NET ticks (100 ns) since the Unix epoch, the unit of the `created` metadata entry. */
  createdTicks: string;
}

export type Expectation =
  | { kind: 'any' }
  | { kind: 'no_stream' }
  | { kind: 'stream_exists' }
  | { kind: 'revision'; revision: number };

export type AppendOutcome =
  | { kind: 'success'; currentRevision: number | undefined; position: number | undefined; replayed: boolean }
  | { kind: 'wrong_expected_version'; currentRevision: number | undefined };

/** Where the first event lands; arbitrary but non-zero, like a real log that starts with system records. */
const FIRST_POSITION = 1_000;
/** Fixed overhead per record so positions look like byte offsets rather than a dense counter. */
const RECORD_OVERHEAD = 96;
/** Size of the commit record closing an explicit transaction. */
const COMMIT_RECORD_SIZE = 64;

function compare(a: LogPosition, b: LogPosition): number {
  return a.commit - b.commit || a.prepare - b.prepare;
}

export class InMemoryLog {
  private readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly listeners = new Set<() => void>();
  private nextPosition = FIRST_POSITION;

  get length(): number {
    return this.all.length;
  }

  at(index: number): StoredEvent | undefined {
    return this.all[index];
  }

  /** Index of the first event strictly after `position` in `$all` order, as the server resumes. */
  indexAfter(position: LogPosition): number {
    return this.countWhile((event) => compare(event, position) <= 0);
  }

  /**
   * Index of the first event at or after `position`: a forwards read of `$all` from a position
   * includes the event at it (the server's `AllReader` keeps records with `{ commit, prepare }` >=
   * the position), unlike a subscription.
   */
  indexAtOrAfter(position: LogPosition): number {
    return this.countWhile((event) => compare(event, position) < 0);
  }

  /**
   * How many events, from the start of the log, lie wholly before `position`: a backwards read of
   * `$all` from a position returns these, newest first. The server keeps a record when the pair of
   * post-positions `{ commit record end, prepare record end }` is <= the position, so the event at
   * `position` itself is excluded, and so is every event of an explicit transaction whose commit
   * position is `position.commit` (its commit record ends after that position).
   */
  countEndingBy(position: LogPosition): number {
    return this.countWhile((event) => compare({ commit: event.commitEnd, prepare: event.prepareEnd }, position) <= 0);
  }

  /** Length of the log's prefix whose events satisfy `predicate`, which holds for a prefix in `$all` order. */
  private countWhile(predicate: (event: StoredEvent) => boolean): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const event = this.all[mid];
      if (event && predicate(event)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  stream(name: string): readonly StoredEvent[] | undefined {
    return this.streams.get(name);
  }

  /** Called after every successful write; used to push live events to subscribers. */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Atomic: either every proposed event is stored or none is. */
  append(streamName: string, expectation: Expectation, proposed: readonly ProposedEvent[]): AppendOutcome {
    const existing = this.streams.get(streamName) ?? [];
    const current = existing.length > 0 ? existing.length - 1 : undefined;
    const wrong: AppendOutcome = { kind: 'wrong_expected_version', currentRevision: current };

    switch (expectation.kind) {
      case 'revision':
      case 'no_stream': {
        const expected = expectation.kind === 'no_stream' ? -1 : expectation.revision;
        const actual = current ?? -1;
        if (expected > actual) return wrong;
        if (expected < actual) return this.idempotentReplay(existing, expected + 1, proposed) ?? wrong;
        break;
      }
      case 'stream_exists':
      case 'any': {
        if (expectation.kind === 'stream_exists' && current === undefined) return wrong;
        const first = proposed[0];
        const start = first ? existing.findIndex((e) => e.id === first.id) : -1;
        if (start >= 0) return this.idempotentReplay(existing, start, proposed) ?? wrong;
        break;
      }
    }

    if (proposed.length === 0) {
      const last = current === undefined ? undefined : existing[current];
      return { kind: 'success', currentRevision: current, position: last?.commit, replayed: false };
    }
    const createdTicks = (BigInt(Date.now()) * 10_000n).toString();
    const stored = proposed.map((event, i): StoredEvent => {
      const { position, end } = this.writeRecord(event);
      return { ...event, streamName, revision: existing.length + i, prepare: position, commit: position, prepareEnd: end, commitEnd: end, createdTicks };
    });
    this.store(streamName, stored);
    const last = stored[stored.length - 1];
    return { kind: 'success', currentRevision: last?.revision, position: last?.commit, replayed: false };
  }

  /**
   * Test-only: what an explicit transaction of the legacy TCP API leaves in the log (the gRPC API
   * cannot write one). Its prepares come first, each at its own position, then one commit record
   * whose position every event of the transaction takes as its commit position. Appended to the
   * end of the stream, as with expected revision `any`.
   */
  commitExplicitTransaction(streamName: string, proposed: readonly ProposedEvent[]): StoredEvent[] {
    const existing = this.streams.get(streamName) ?? [];
    const createdTicks = (BigInt(Date.now()) * 10_000n).toString();
    const prepared = proposed.map((event, i) => {
      const { position, end } = this.writeRecord(event);
      return { ...event, streamName, revision: existing.length + i, prepare: position, prepareEnd: end, createdTicks };
    });
    const commit = this.nextPosition;
    this.nextPosition += COMMIT_RECORD_SIZE;
    const stored = prepared.map((event): StoredEvent => ({ ...event, commit, commitEnd: this.nextPosition }));
    this.store(streamName, stored);
    return stored;
  }

  /** Reserves the log space of one event record and returns where it starts and ends. */
  private writeRecord(event: ProposedEvent): { position: number; end: number } {
    const position = this.nextPosition;
    this.nextPosition += RECORD_OVERHEAD + event.data.length + event.customMetadata.length;
    return { position, end: this.nextPosition };
  }

  private store(streamName: string, stored: readonly StoredEvent[]): void {
    this.streams.set(streamName, [...(this.streams.get(streamName) ?? []), ...stored]);
    this.all.push(...stored);
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * EventStoreDB treats a write whose ids already follow the expected revision as a retry and
   * answers with the original result; a partial match ("corrupted idempotency") is a conflict.
   */
  private idempotentReplay(existing: readonly StoredEvent[], fromRevision: number, proposed: readonly ProposedEvent[]): AppendOutcome | undefined {
    if (proposed.length === 0) return undefined;
    let last: StoredEvent | undefined;
    for (const [i, event] of proposed.entries()) {
      const stored = existing[fromRevision + i];
      if (!stored || stored.id !== event.id) return undefined;
      last = stored;
    }
    return { kind: 'success', currentRevision: last?.revision, position: last?.commit, replayed: true };
  }
}
