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

export interface StoredEvent extends ProposedEvent {
  streamName: string;
  revision: number;
  /** Log position; commit and prepare position are equal, as for 20.x+ implicit transactions. */
  position: number;
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

  /** Index of the first event whose position is strictly greater than `position`. */
  indexAfter(position: number): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.all[mid]?.position ?? Infinity) <= position) low = mid + 1;
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
      return { kind: 'success', currentRevision: current, position: last?.position, replayed: false };
    }
    const createdTicks = (BigInt(Date.now()) * 10_000n).toString();
    const stored = proposed.map((event, i): StoredEvent => {
      const position = this.nextPosition;
      this.nextPosition += RECORD_OVERHEAD + event.data.length + event.customMetadata.length;
      return { ...event, streamName, revision: existing.length + i, position, createdTicks };
    });
    this.streams.set(streamName, [...existing, ...stored]);
    this.all.push(...stored);
    for (const listener of [...this.listeners]) listener();
    const last = stored[stored.length - 1];
    return { kind: 'success', currentRevision: last?.revision, position: last?.position, replayed: false };
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
    return { kind: 'success', currentRevision: last?.revision, position: last?.position, replayed: true };
  }
}
