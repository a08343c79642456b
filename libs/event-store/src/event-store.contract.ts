/**
 * The behaviour every EventStore adapter must show, written once and run against each adapter
 * (see the `*.int.spec.ts` files). Test-only: not exported from the library index.
 */
import { randomUUID } from 'node:crypto';
import { WrongExpectedVersionError, type EventData, type EventStore, type RecordedEvent } from './event-store.port';

export type EventStoreFactory = () => Promise<EventStore>;

const WAIT_MS = 10_000;

function newEvent(type: string, data: unknown = { value: randomUUID() }): EventData {
  return { id: randomUUID(), type, data, metadata: { correlationId: randomUUID(), source: 'contract' } };
}

function ids(events: ReadonlyArray<{ id: string }>): string[] {
  return events.map((e) => e.id);
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

function expectWrongExpectedVersion(error: unknown, expected: Partial<WrongExpectedVersionError>): void {
  expect(error).toBeInstanceOf(WrongExpectedVersionError);
  expect(error).toMatchObject(expected);
}

function expectStrictlyIncreasing(values: readonly number[]): void {
  for (let i = 1; i < values.length; i++) {
    const previous = values[i - 1] ?? Number.NaN;
    const current = values[i] ?? Number.NaN;
    if (!(current > previous)) throw new Error(`positions must strictly increase, but #${i} is ${current} after ${previous} (all: ${values.join(', ')})`);
  }
  expect(values.every((v) => Number.isSafeInteger(v))).toBe(true);
}

/** The comparable part of a recorded event (createdAt as a number, so equal instants compare equal). */
function comparable(event: RecordedEvent) {
  const { createdAt, ...rest } = event;
  return { ...rest, createdAt: createdAt.getTime() };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Pulls from a subscription, one event at a time, failing loudly when it stalls or ends. */
class SubscriptionReader {
  readonly received: RecordedEvent[] = [];
  private readonly iterator: AsyncIterator<RecordedEvent>;

  constructor(subscription: AsyncIterable<RecordedEvent>) {
    this.iterator = subscription[Symbol.asyncIterator]();
  }

  async next(): Promise<RecordedEvent> {
    const result = await withTimeout(this.iterator.next(), WAIT_MS, `event #${this.received.length + 1} (received so far: ${ids(this.received).join(', ') || 'none'})`);
    if (result.done) throw new Error('subscription ended unexpectedly');
    this.received.push(result.value);
    return result.value;
  }

  async take(count: number): Promise<RecordedEvent[]> {
    const taken: RecordedEvent[] = [];
    while (taken.length < count) taken.push(await this.next());
    return taken;
  }

  /** Reads until every id has been seen; other streams' events (earlier tests) are passed over. */
  async until(wanted: readonly string[]): Promise<void> {
    const missing = new Set(wanted);
    for (const e of this.received) missing.delete(e.id);
    while (missing.size > 0) missing.delete((await this.next()).id);
  }
}

export function describeEventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`event store contract [${name}]`, () => {
    let store: EventStore;
    // Unique per run so a persistent server (a real EventStoreDB) never sees a name twice.
    const runId = randomUUID().slice(0, 8);
    let counter = 0;
    // `-` and `.` on purpose: both are special in some backends (NATS subjects).
    const uniqueStream = (label: string) => `contract-${runId}-${++counter}.${label}`;

    beforeAll(async () => {
      store = await factory();
    });

    afterAll(async () => {
      await store?.close();
    });

    it('appends to a new stream with no_stream and reads the events back in order with revisions 0..n', async () => {
      const stream = uniqueStream('order-1');
      const first: EventData[] = [
        newEvent('OrderPlaced', { n: 1 }),
        { id: randomUUID(), type: 'OrderPaid', data: { n: 2, amount: 12.5 } },
        newEvent('OrderShipped', { n: 3, nested: { ok: true }, list: [1, 'two', null] }),
      ];
      const result = await store.append(stream, first, { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(2);

      const read = await store.readStream(stream);
      expect(read.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata, streamName: e.streamName, revision: e.revision }))).toEqual(
        first.map((e, i) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata ?? {}, streamName: stream, revision: i })),
      );
      expectStrictlyIncreasing(read.map((e) => e.position));
      expect(result.position).toBeGreaterThanOrEqual(read[0]?.position ?? Infinity);
      expect(result.position).toBeLessThanOrEqual(read[2]?.position ?? -Infinity);
      for (const e of read) {
        expect(e.createdAt).toBeInstanceOf(Date);
        expect(Math.abs(e.createdAt.getTime() - Date.now())).toBeLessThan(10 * 60_000);
      }

      const second = [newEvent('OrderRefunded'), newEvent('OrderClosed')];
      const next = await store.append(stream, second, { expectedRevision: 2 });
      expect(next.nextExpectedRevision).toBe(4);
      expect(next.position).toBeGreaterThan(result.position);

      const all = await store.readStream(stream);
      expect(ids(all)).toEqual(ids([...first, ...second]));
      expect(all.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      expectStrictlyIncreasing(all.map((e) => e.position));
      // From a revision in the middle of a commit, across the commit boundary, and past the end.
      expect((await store.readStream(stream, { fromRevision: 1 })).map((e) => e.revision)).toEqual([1, 2, 3, 4]);
      expect((await store.readStream(stream, { fromRevision: 4 })).map((e) => [e.id, e.revision])).toEqual([[second[1]?.id, 4]]);
      expect(await store.readStream(stream, { fromRevision: 5 })).toEqual([]);
    });

    it('rejects a stale expected revision with WrongExpectedVersionError carrying the actual revision', async () => {
      const stream = uniqueStream('stale');
      const stored = [newEvent('A'), newEvent('B')];
      await store.append(stream, stored, { expectedRevision: 'no_stream' });

      expectWrongExpectedVersion(await rejectionOf(store.append(stream, [newEvent('C')], { expectedRevision: 0 })), { streamName: stream, expected: 0, actual: 1 });
      expectWrongExpectedVersion(await rejectionOf(store.append(stream, [newEvent('C')], { expectedRevision: 'no_stream' })), { expected: 'no_stream', actual: 1 });
      expectWrongExpectedVersion(await rejectionOf(store.append(stream, [newEvent('C')], { expectedRevision: 7 })), { expected: 7, actual: 1 });
      const missing = uniqueStream('missing');
      expectWrongExpectedVersion(await rejectionOf(store.append(missing, [newEvent('C')], { expectedRevision: 0 })), { streamName: missing, expected: 0, actual: 'no_stream' });

      expect(ids(await store.readStream(stream))).toEqual(ids(stored));
      expect(await store.readStream(missing)).toEqual([]);
    });

    it('appends at a lastPosition the caller saw, and never lets a stale one decide the outcome', async () => {
      const stream = uniqueStream('hinted');
      const first = await store.append(stream, [newEvent('A')], { expectedRevision: 'no_stream' });
      const second = await store.append(stream, [newEvent('B'), newEvent('C')], { expectedRevision: 0, lastPosition: first.position });
      expect(second.nextExpectedRevision).toBe(2);
      // Right revision, position of an older commit: appended all the same, at the right revision.
      const third = await store.append(stream, [newEvent('D')], { expectedRevision: 2, lastPosition: first.position });
      expect(third.nextExpectedRevision).toBe(3);
      // A stale view of the stream (revision and position of an event the stream has gone past) is refused.
      expectWrongExpectedVersion(await rejectionOf(store.append(stream, [newEvent('X')], { expectedRevision: 2, lastPosition: second.position })), { expected: 2, actual: 3 });
      // A position that is not an event of this stream at all changes nothing either.
      const other = uniqueStream('other');
      const elsewhere = await store.append(other, [newEvent('E')], { expectedRevision: 'no_stream' });
      expect((await store.append(stream, [newEvent('F')], { expectedRevision: 3, lastPosition: elsewhere.position })).nextExpectedRevision).toBe(4);
      expect((await store.readStream(stream)).map((e) => [e.type, e.revision])).toEqual([
        ['A', 0],
        ['B', 1],
        ['C', 2],
        ['D', 3],
        ['F', 4],
      ]);
    });

    it('lets exactly one of two concurrent appends with the same expected revision win', async () => {
      const stream = uniqueStream('race');
      const created = newEvent('Created');
      await store.append(stream, [created], { expectedRevision: 'no_stream' });
      const a = [newEvent('A1'), newEvent('A2')];
      const b = [newEvent('B1')];

      const outcomes = await Promise.allSettled([store.append(stream, a, { expectedRevision: 0 }), store.append(stream, b, { expectedRevision: 0 })]);
      const winners = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i === 0 ? a : b] : []));
      const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      const winner = winners[0] ?? [];
      expectWrongExpectedVersion(losers[0], { expected: 0, actual: winner.length });
      expect(ids(await store.readStream(stream))).toEqual(ids([created, ...winner]));

      // The same race on a stream that does not exist yet.
      const fresh = uniqueStream('race-create');
      const c = [newEvent('C1')];
      const d = [newEvent('D1'), newEvent('D2'), newEvent('D3')];
      const creates = await Promise.allSettled([store.append(fresh, c, { expectedRevision: 'no_stream' }), store.append(fresh, d, { expectedRevision: 'no_stream' })]);
      const created2 = creates.flatMap((o, i) => (o.status === 'fulfilled' ? [i === 0 ? c : d] : []));
      const rejected2 = creates.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(created2).toHaveLength(1);
      expectWrongExpectedVersion(rejected2[0], { expected: 'no_stream', actual: (created2[0] ?? []).length - 1 });
      expect(ids(await store.readStream(fresh))).toEqual(ids(created2[0] ?? []));
    });

    it('stores a retried append (same ids, same expected revision) once and returns the same result', async () => {
      const stream = uniqueStream('retry');
      const batch = [newEvent('E1'), newEvent('E2')];
      const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
      expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);

      const later = [newEvent('F1')];
      const second = await store.append(stream, later, { expectedRevision: 1 });
      expect(await store.append(stream, later, { expectedRevision: 1 })).toEqual(second);
      // A retry arriving after someone else's commit is still recognised as the original write.
      expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
      expect(ids(await store.readStream(stream))).toEqual(ids([...batch, ...later]));

      // Only some of the ids matching is not a retry but a conflict.
      expectWrongExpectedVersion(await rejectionOf(store.append(stream, [batch[0] ?? newEvent('x'), newEvent('Other')], { expectedRevision: 'no_stream' })), { actual: 2 });
      expect(ids(await store.readStream(stream))).toEqual(ids([...batch, ...later]));
    });

    it('stores two identical appends sent concurrently once, answering both with the same result', async () => {
      const stream = uniqueStream('retry-concurrent');
      const batch = [newEvent('G1'), newEvent('G2')];
      const [one, two] = await Promise.all([
        store.append(stream, batch, { expectedRevision: 'no_stream' }),
        store.append(stream, batch, { expectedRevision: 'no_stream' }),
      ]);
      expect(one).toEqual(two);
      expect(one.nextExpectedRevision).toBe(1);
      expect(ids(await store.readStream(stream))).toEqual(ids(batch));
    });

    it('makes a multi-event append all-or-nothing', async () => {
      const stream = uniqueStream('atomic');
      const opened = newEvent('Opened');
      await store.append(stream, [opened], { expectedRevision: 'no_stream' });
      const [openedRecord] = await store.readStream(stream);

      const rejectedBatch = [newEvent('L1'), newEvent('L2'), newEvent('L3')];
      expectWrongExpectedVersion(await rejectionOf(store.append(stream, rejectedBatch, { expectedRevision: 'no_stream' })), { actual: 0 });
      expect(ids(await store.readStream(stream))).toEqual([opened.id]);

      // Nothing of the failed commit reached the global log either: the next event after `opened` is the sentinel.
      const sentinel = newEvent('Sentinel');
      await store.append(stream, [sentinel], { expectedRevision: 0 });
      const subscription = store.subscribeToAll({ fromPosition: openedRecord?.position ?? 0, streamPrefixes: [stream] });
      try {
        expect((await new SubscriptionReader(subscription).next()).id).toBe(sentinel.id);
      } finally {
        await subscription.unsubscribe();
      }

      // Concurrent multi-event commits never interleave: each lands as one contiguous block.
      const shared = uniqueStream('atomic-any');
      const x = [newEvent('X1'), newEvent('X2'), newEvent('X3')];
      const y = [newEvent('Y1'), newEvent('Y2'), newEvent('Y3')];
      await Promise.all([store.append(shared, x, { expectedRevision: 'any' }), store.append(shared, y, { expectedRevision: 'any' })]);
      const stored = await store.readStream(shared);
      expect(stored.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
      expect([ids([...x, ...y]), ids([...y, ...x])]).toContainEqual(ids(stored));
    });

    it('returns an empty array for a stream that does not exist', async () => {
      const stream = uniqueStream('nothing-here');
      expect(await store.readStream(stream)).toEqual([]);
      expect(await store.readStream(stream, { fromRevision: 3 })).toEqual([]);
    });

    it('always appends with any, on new and existing streams', async () => {
      const stream = uniqueStream('any');
      const a = newEvent('A');
      const b = [newEvent('B'), newEvent('C')];
      const d = newEvent('D');
      const r1 = await store.append(stream, [a], { expectedRevision: 'any' });
      const r2 = await store.append(stream, b, { expectedRevision: 'any' });
      const r3 = await store.append(stream, [d], { expectedRevision: 'any' });
      expect([r1.nextExpectedRevision, r2.nextExpectedRevision, r3.nextExpectedRevision]).toEqual([0, 2, 3]);
      expectStrictlyIncreasing([r1.position, r2.position, r3.position]);
      // A retried `any` append of the latest commit is not stored twice.
      expect(await store.append(stream, [d], { expectedRevision: 'any' })).toEqual(r3);
      const stored = await store.readStream(stream);
      expect(ids(stored)).toEqual(ids([a, ...b, d]));
      expect(stored.map((e) => e.revision)).toEqual([0, 1, 2, 3]);
    });

    it('rejects an append without events and keeps the stream untouched', async () => {
      const stream = uniqueStream('empty');
      await expect(store.append(stream, [], { expectedRevision: 'any' })).rejects.toThrow(RangeError);
      expect(await store.readStream(stream)).toEqual([]);
    });

    it('subscribeToAll from the start delivers every event in order, then live ones appended after subscribing', async () => {
      const s1 = uniqueStream('feed-a');
      const s2 = uniqueStream('feed-b');
      const before = [newEvent('H1'), newEvent('H2')];
      const before2 = [newEvent('H3')];
      await store.append(s1, before, { expectedRevision: 'no_stream' });
      await store.append(s2, before2, { expectedRevision: 'no_stream' });

      const subscription = store.subscribeToAll();
      try {
        const reader = new SubscriptionReader(subscription);
        await reader.until(ids([...before, ...before2]));

        const live = [newEvent('L1'), newEvent('L2')];
        const live2 = [newEvent('L3')];
        await store.append(s1, live, { expectedRevision: 1 });
        await store.append(s2, live2, { expectedRevision: 0 });
        await reader.until(ids([...live, ...live2]));

        const ours = reader.received.filter((e) => e.streamName === s1 || e.streamName === s2);
        expect(ids(ours)).toEqual(ids([...before, ...before2, ...live, ...live2]));
        expect(ours.map((e) => [e.streamName, e.revision])).toEqual([[s1, 0], [s1, 1], [s2, 0], [s1, 2], [s1, 3], [s2, 1]]);
        // Ordered across the whole log, not just our streams.
        expectStrictlyIncreasing(reader.received.map((e) => e.position));
        // The subscription and readStream describe the same events identically.
        const fromRead = [...(await store.readStream(s1)), ...(await store.readStream(s2))].sort((l, r) => l.position - r.position);
        expect(ours.map(comparable)).toEqual(fromRead.map(comparable));
      } finally {
        await subscription.unsubscribe();
      }
    });

    it('subscribeToAll from a position delivers exactly the later events, in order, even mid-commit', async () => {
      const stream = uniqueStream('resume');
      const c1 = [newEvent('R1'), newEvent('R2')];
      const c2 = [newEvent('R3'), newEvent('R4'), newEvent('R5')];
      const c3 = [newEvent('R6')];
      await store.append(stream, c1, { expectedRevision: 'no_stream' });
      await store.append(stream, c2, { expectedRevision: 1 });
      await store.append(stream, c3, { expectedRevision: 4 });
      const stored = await store.readStream(stream);
      const positionOf = (index: number) => stored[index]?.position ?? Number.NaN;

      // Resume after the first event of a multi-event commit: the rest of that commit follows.
      const midCommit = store.subscribeToAll({ fromPosition: positionOf(2) });
      try {
        const reader = new SubscriptionReader(midCommit);
        expect(ids(await reader.take(3))).toEqual(ids([c2[1], c2[2], c3[0]].filter((e): e is EventData => e !== undefined)));
        // Nothing else sneaks in: the next delivery is an event appended only now.
        const sentinel = newEvent('Sentinel');
        await store.append(stream, [sentinel], { expectedRevision: 5 });
        expect((await reader.next()).id).toBe(sentinel.id);
      } finally {
        await midCommit.unsubscribe();
      }

      // Resume after the last event of a commit: the next commit starts.
      const atBoundary = store.subscribeToAll({ fromPosition: positionOf(1), streamPrefixes: [stream] });
      try {
        const taken = await new SubscriptionReader(atBoundary).take(2);
        expect(ids(taken)).toEqual(ids(c2.slice(0, 2)));
        expect(taken.map((e) => e.position)).toEqual([positionOf(2), positionOf(3)]);
      } finally {
        await atBoundary.unsubscribe();
      }
    });

    it('subscribeToAll with stream prefixes delivers only matching streams, catching up and live', async () => {
      const base = `contract-${runId}-${++counter}`;
      const marker = `${base}-marker`;
      await store.append(marker, [newEvent('Marker')], { expectedRevision: 'no_stream' });
      const [markerRecord] = await store.readStream(marker);

      const a1 = newEvent('A1');
      const x1 = newEvent('X1');
      const o1 = newEvent('O1');
      const b1 = newEvent('B1');
      const ab1 = newEvent('AB1');
      const a2 = newEvent('A2');
      await store.append(`${base}-a.1`, [a1], { expectedRevision: 'no_stream' });
      await store.append(`${base}-x.1`, [x1], { expectedRevision: 'no_stream' });
      await store.append(`other-${base}-a`, [o1], { expectedRevision: 'no_stream' });
      await store.append(`${base}-b.1`, [b1], { expectedRevision: 'no_stream' });
      // A prefix is a plain string prefix: `…-ab` matches `…-a`.
      await store.append(`${base}-ab`, [ab1], { expectedRevision: 'no_stream' });
      await store.append(`${base}-a.1`, [a2], { expectedRevision: 0 });

      const filtered = store.subscribeToAll({ fromPosition: markerRecord?.position ?? 0, streamPrefixes: [`${base}-a`, `${base}-b`] });
      const fromStart = store.subscribeToAll({ streamPrefixes: [`${base}-b`] });
      try {
        const reader = new SubscriptionReader(filtered);
        expect(ids(await reader.take(4))).toEqual(ids([a1, b1, ab1, a2]));
        const startReader = new SubscriptionReader(fromStart);
        expect((await startReader.next()).id).toBe(b1.id);

        const x2 = newEvent('X2');
        const b2 = newEvent('B2');
        await store.append(`${base}-x.1`, [x2], { expectedRevision: 0 });
        await store.append(`${base}-b.1`, [b2], { expectedRevision: 0 });
        expect((await reader.next()).id).toBe(b2.id);
        expect((await startReader.next()).id).toBe(b2.id);
        expect(reader.received.every((e) => e.streamName.startsWith(`${base}-a`) || e.streamName.startsWith(`${base}-b`))).toBe(true);
      } finally {
        await filtered.unsubscribe();
        await fromStart.unsubscribe();
      }
    });

    it('gives strictly increasing positions across commits and streams, the same in reads and subscriptions', async () => {
      const s1 = uniqueStream('pos-a');
      const s2 = uniqueStream('pos-b');
      const results = [
        await store.append(s1, [newEvent('P1'), newEvent('P2'), newEvent('P3')], { expectedRevision: 'no_stream' }),
        await store.append(s2, [newEvent('P4')], { expectedRevision: 'no_stream' }),
        await store.append(s1, [newEvent('P5'), newEvent('P6')], { expectedRevision: 2 }),
      ];
      expectStrictlyIncreasing(results.map((r) => r.position));
      const read = [...(await store.readStream(s1)), ...(await store.readStream(s2))];
      const positions = read.map((e) => e.position).sort((l, r) => l - r);
      expect(new Set(positions).size).toBe(6);
      expectStrictlyIncreasing((await store.readStream(s1)).map((e) => e.position));

      const subscription = store.subscribeToAll({ fromPosition: (positions[0] ?? 1) - 1, streamPrefixes: [s1, s2] });
      try {
        const delivered = await new SubscriptionReader(subscription).take(6);
        expect(delivered.map((e) => e.position)).toEqual(positions);
      } finally {
        await subscription.unsubscribe();
      }
    });

    it('reports the head position: the last event of the log, which a subscription reaches', async () => {
      const stream = uniqueStream('head');
      await store.append(stream, [newEvent('H1')], { expectedRevision: 'no_stream' });
      const last = await store.append(stream, [newEvent('H2'), newEvent('H3')], { expectedRevision: 0 });
      const head = await store.headPosition();
      expect(head).toBe(last.position);
      const read = await store.readStream(stream);
      expect(read.at(-1)?.position).toBe(head);
    });

    it('ends iteration when a subscription is unsubscribed', async () => {
      const subscription = store.subscribeToAll({ streamPrefixes: [uniqueStream('silence')] });
      const pending = subscription[Symbol.asyncIterator]().next();
      await subscription.unsubscribe();
      await expect(withTimeout(pending, WAIT_MS, 'the iterator to finish')).resolves.toEqual(expect.objectContaining({ done: true }));
    });

    it('reports readiness, and is no longer ready or usable once closed', async () => {
      const other = await factory();
      expect(await other.isReady()).toBe(true);
      const subscription = other.subscribeToAll({ streamPrefixes: [uniqueStream('closing')] });
      const pending = subscription[Symbol.asyncIterator]().next();
      await other.close();
      await expect(withTimeout(pending, WAIT_MS, 'close to end the subscription')).resolves.toEqual(expect.objectContaining({ done: true }));
      expect(await other.isReady()).toBe(false);
      await expect(other.append(uniqueStream('closed'), [newEvent('Late')], { expectedRevision: 'any' })).rejects.toThrow();
      // The shared store is unaffected.
      expect(await store.isReady()).toBe(true);
    });
  });
}
