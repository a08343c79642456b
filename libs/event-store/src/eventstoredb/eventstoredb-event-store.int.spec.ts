import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  START,
  STREAM_EXISTS,
  streamNameFilter,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import { describeEventStoreContract } from '../event-store.contract';
import { EventStoreDbEventStore, ExplicitTransactionEventError } from './eventstoredb-event-store';
import { startEventStoreDbFake, type EventStoreDbFakeOptions, type RunningEventStoreDbFake } from './test-double/eventstoredb-fake';

/** Runs the contract against a fresh test double; `label` names the describe block. */
function contractOnFake(label: string, options: EventStoreDbFakeOptions): void {
  describe(`on the gRPC test double (${options.batchAppend === false ? 'Streams.Append' : 'Streams.BatchAppend'})`, () => {
    let fake: RunningEventStoreDbFake | undefined;

    beforeAll(async () => {
      fake = await startEventStoreDbFake(options);
    });

    afterAll(async () => {
      await fake?.stop();
    });

    describeEventStoreContract(label, async () => {
      if (!fake) throw new Error('the EventStoreDB test double did not start');
      return EventStoreDbEventStore.connect({ url: fake.connectionString });
    });
  });
}

// Current servers make the client append through BatchAppend; older ones through Append.
contractOnFake('eventstoredb-fake', { batchAppend: true });
contractOnFake('eventstoredb-fake-append', { batchAppend: false });

const esdbUrl = process.env['ESDB_URL'];
if (esdbUrl) {
  describeEventStoreContract('eventstoredb', () => EventStoreDbEventStore.connect({ url: esdbUrl }));
} else {
  console.log('skipped: ESDB_URL not set (real EventStoreDB run)');
  // A Jest skip as well, so the summary counts the real-server contract as not run.
  describe.skip('event store contract [eventstoredb] (skipped: ESDB_URL not set)', () => {
    it('runs the event store contract against a real EventStoreDB', () => undefined);
  });
}

/** More than the adapter's page when it reads `$all` backwards for the head, so it has to page. */
const SYSTEM_EVENTS_PAST_A_PAGE = 150;

/** Events a user of the port cannot write but a server writes on its own: `$` types and `$` streams. */
async function appendSystemEvents(client: EventStoreDBClient, tag: string): Promise<void> {
  await client.appendToStream(
    `system-typed-${tag}`,
    Array.from({ length: SYSTEM_EVENTS_PAST_A_PAGE }, (_, n) => jsonEvent({ type: '$statsCollected', data: { n } })),
  );
  await client.appendToStream(`$system-stream-${tag}`, jsonEvent({ type: 'Ordinary', data: {} }));
}

describe('EventStoreDbEventStore specifics', () => {
  let fake: RunningEventStoreDbFake;
  let store: EventStoreDbEventStore;
  let raw: EventStoreDBClient;

  beforeAll(async () => {
    fake = await startEventStoreDbFake({ positionOnReplay: false });
    store = await EventStoreDbEventStore.connect({ url: fake.connectionString });
    raw = EventStoreDBClient.connectionString(fake.connectionString);
  });

  afterAll(async () => {
    await store?.close();
    await raw?.dispose();
    await fake?.stop();
  });

  it('reports no head position for a log holding only system events, paging back to its start', async () => {
    const emptyFake = await startEventStoreDbFake();
    const emptyStore = await EventStoreDbEventStore.connect({ url: emptyFake.connectionString });
    const emptyRaw = EventStoreDBClient.connectionString(emptyFake.connectionString);
    try {
      expect(await emptyStore.headPosition()).toBeNull();
      await appendSystemEvents(emptyRaw, randomUUID());
      expect(await emptyStore.headPosition()).toBeNull();
    } finally {
      await emptyStore.close();
      await emptyRaw.dispose();
      await emptyFake.stop();
    }
  });

  it('passes over system events appended last ($ types, $ streams), as its subscriptions do, paging backwards past them', async () => {
    const stream = `head-user-${randomUUID()}`;
    const last = await store.append(stream, [{ id: randomUUID(), type: 'UserEvent', data: {} }], { expectedRevision: 'no_stream' });
    await appendSystemEvents(raw, randomUUID());
    expect(await store.headPosition()).toBe(last.position);
  });

  it('refuses a head event of an explicit transaction, as a subscription refuses it', async () => {
    const stream = `head-legacy-tx-${randomUUID()}`;
    fake.commitExplicitTransaction(stream, [{ type: 'Legacy', data: {} }]);
    await expect(store.headPosition()).rejects.toBeInstanceOf(ExplicitTransactionEventError);
    const later = await store.append(`head-after-tx-${randomUUID()}`, [{ id: randomUUID(), type: 'UserEvent', data: {} }], { expectedRevision: 'no_stream' });
    expect(await store.headPosition()).toBe(later.position);
  });

  it('answers a retried append with the original position even when the server leaves it out', async () => {
    const stream = `replay-${randomUUID()}`;
    const batch = [1, 2].map((n) => ({ id: randomUUID(), type: 'Step', data: { n } }));
    const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
    await store.append(stream, [{ id: randomUUID(), type: 'Later', data: {} }], { expectedRevision: 1 });
    expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Step', 'Step', 'Later']);
  });

  it('refuses, in a subscription, an event of an explicit transaction rather than repeat its shared commit position', async () => {
    const stream = `legacy-tx-${randomUUID()}`;
    const [first] = fake.commitExplicitTransaction(stream, [
      { type: 'Legacy', data: { n: 1 } },
      { type: 'Legacy', data: { n: 2 } },
    ]);
    const subscription = store.subscribeToAll({ streamPrefixes: [stream] });
    const next = subscription[Symbol.asyncIterator]().next();
    await expect(next).rejects.toBeInstanceOf(ExplicitTransactionEventError);
    await expect(next).rejects.toThrow(`commit ${first?.commit}, prepare ${first?.prepare}`);
    await subscription.unsubscribe();
  });

  it('reads events the server gives no position (explicit transactions; any event before 22.6) with position -1', async () => {
    const stream = `legacy-read-${randomUUID()}`;
    await store.append(stream, [{ id: randomUUID(), type: 'Appended', data: {} }], { expectedRevision: 'no_stream' });
    fake.commitExplicitTransaction(stream, [{ type: 'Legacy', data: { n: 1 } }]);
    const read = await store.readStream(stream);
    expect(read.map((e) => [e.type, e.revision])).toEqual([['Appended', 0], ['Legacy', 1]]);
    expect(read[0]?.position).toBeGreaterThan(0);
    expect(read[1]?.position).toBe(-1);
  });
});

/**
 * The double is only useful while it answers like the server; these pin the protocol details the
 * contract does not reach through the adapter.
 */
describe('EventStoreDB test double, spoken to by the raw client', () => {
  let fake: RunningEventStoreDbFake;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    fake = await startEventStoreDbFake();
    client = EventStoreDBClient.connectionString(fake.connectionString);
  });

  afterAll(async () => {
    await client?.dispose();
    await fake?.stop();
  });

  it('gives each event of a multi-event append its own position, commit and prepare equal, as the server does', async () => {
    const stream = `raw-positions-${randomUUID()}`;
    await client.appendToStream(stream, [1, 2, 3].map((n) => jsonEvent({ type: 'Batch', data: { n } })));
    const positions = [];
    for await (const resolved of client.readStream(stream)) positions.push(resolved.event?.position);
    expect(positions).toHaveLength(3);
    for (const position of positions) expect(position?.commit).toBe(position?.prepare);
    expect(new Set(positions.map((p) => p?.commit)).size).toBe(3);
  });

  it('gives an explicit transaction one commit position with distinct prepares, and resumes $all after a { commit, prepare } pair', async () => {
    const stream = `raw-tx-${randomUUID()}`;
    const stored = fake.commitExplicitTransaction(stream, [1, 2, 3].map((n) => ({ type: 'Legacy', data: { n } })));
    const [first, second, third] = stored;
    expect(new Set(stored.map((e) => e.commit)).size).toBe(1);
    expect(first!.prepare).toBeLessThan(second!.prepare);
    expect(second!.prepare).toBeLessThan(third!.prepare);
    expect(third!.prepare).toBeLessThan(first!.commit);

    // Stream reads carry no position for such events; $all carries the pair.
    for await (const resolved of client.readStream(stream)) expect(resolved.commitPosition).toBeUndefined();
    const subscription = client.subscribeToAll({
      fromPosition: { commit: BigInt(first!.commit), prepare: BigInt(first!.prepare) },
      filter: streamNameFilter({ prefixes: [stream] }),
    });
    try {
      const received: Array<[string | undefined, bigint | undefined, bigint | undefined]> = [];
      for await (const resolved of subscription) {
        received.push([resolved.event?.id, resolved.event?.position?.commit, resolved.event?.position?.prepare]);
        if (received.length === 2) break;
      }
      expect(received).toEqual([second, third].map((e) => [e!.id, BigInt(e!.commit), BigInt(e!.prepare)]));
    } finally {
      await subscription.unsubscribe();
    }
  });

  /** Commit positions of what a read of `$all` returns. */
  async function readAllCommits(options: Parameters<EventStoreDBClient['readAll']>[0]): Promise<Array<bigint | undefined>> {
    const commits = [];
    for await (const resolved of client.readAll(options)) commits.push(resolved.event?.position.commit);
    return commits;
  }

  it('reads $all forwards from a position including it, backwards from a position before it, newest first from the end', async () => {
    const stream = `raw-read-all-${randomUUID()}`;
    await client.appendToStream(stream, [1, 2, 3, 4].map((n) => jsonEvent({ type: 'Read', data: { n } })));
    const positions = [];
    for await (const resolved of client.readStream(stream)) positions.push(resolved.event!.position!);
    const [p1, p2, p3, p4] = positions.map((p) => p.commit);

    expect(await readAllCommits({ direction: BACKWARDS, fromPosition: END, maxCount: 4 })).toEqual([p4, p3, p2, p1]);
    expect(await readAllCommits({ direction: FORWARDS, fromPosition: positions[1], maxCount: 2 })).toEqual([p2, p3]);
    expect(await readAllCommits({ direction: FORWARDS, fromPosition: positions[2] })).toEqual([p3, p4]);
    expect(await readAllCommits({ direction: BACKWARDS, fromPosition: positions[2], maxCount: 2 })).toEqual([p2, p1]);
    const fromStart = await readAllCommits({});
    expect(fromStart.slice(-4)).toEqual([p1, p2, p3, p4]);
    expect(fromStart).toEqual([...fromStart].sort((a, b) => (a! < b! ? -1 : a! > b! ? 1 : 0)));
    expect(await readAllCommits({ direction: BACKWARDS, fromPosition: END })).toEqual([...fromStart].reverse());
    expect(await readAllCommits({ direction: FORWARDS, fromPosition: END })).toEqual([]);
    expect(await readAllCommits({ direction: BACKWARDS, fromPosition: START })).toEqual([]);
  });

  it('reads an explicit transaction from $all with its { commit, prepare } pairs, and backwards from one of them before the whole transaction', async () => {
    const before = `raw-read-tx-before-${randomUUID()}`;
    await client.appendToStream(before, jsonEvent({ type: 'Before', data: {} }));
    const stored = fake.commitExplicitTransaction(`raw-read-tx-${randomUUID()}`, [1, 2, 3].map((n) => ({ type: 'Legacy', data: { n } })));
    const after = await client.appendToStream(`raw-read-tx-after-${randomUUID()}`, jsonEvent({ type: 'After', data: {} }));
    const [t1, t2, t3] = stored.map((e) => ({ commit: BigInt(e.commit), prepare: BigInt(e.prepare) }));
    const pairs = async (options: Parameters<EventStoreDBClient['readAll']>[0]) => {
      const read = [];
      for await (const resolved of client.readAll(options)) read.push([resolved.event?.type, resolved.event?.position]);
      return read;
    };

    expect(await pairs({ direction: BACKWARDS, fromPosition: END, maxCount: 5 })).toEqual([
      ['After', after.position],
      ['Legacy', t3],
      ['Legacy', t2],
      ['Legacy', t1],
      ['Before', expect.anything()],
    ]);
    expect(await pairs({ direction: FORWARDS, fromPosition: t2! })).toEqual([
      ['Legacy', t2],
      ['Legacy', t3],
      ['After', after.position],
    ]);
    // Like the server, which keeps a record backwards only when its commit record ends by the position.
    expect((await pairs({ direction: BACKWARDS, fromPosition: t3!, maxCount: 1 }))[0]?.[0]).toBe('Before');
  });

  it('honours stream_exists and reports the current revision on a conflict', async () => {
    const stream = `raw-${randomUUID()}`;
    const event = () => jsonEvent({ type: 'Raw', data: { at: Date.now() } });
    const conflict = await client.appendToStream(stream, event(), { expectedRevision: STREAM_EXISTS }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(EsdbWrongExpectedVersionError);
    expect(conflict).toMatchObject({ actualVersion: 'no_stream', expectedVersion: STREAM_EXISTS });
    await client.appendToStream(stream, [event(), event()]);
    const appended = await client.appendToStream(stream, event(), { expectedRevision: STREAM_EXISTS });
    expect(appended).toMatchObject({ success: true, nextExpectedRevision: 2n });
  });

  it('confirms a filtered subscription, signals caught-up after the history, then streams live events', async () => {
    const prefix = `raw-sub-${randomUUID()}`;
    await client.appendToStream(`${prefix}-1`, jsonEvent({ type: 'Before', data: {} }));
    const subscription = client.subscribeToAll({ fromPosition: START, filter: streamNameFilter({ prefixes: [prefix] }) });
    try {
      const signals: string[] = [];
      const confirmed = new Promise<void>((resolve) => subscription.once('confirmation', () => resolve()));
      const caughtUp = new Promise<void>((resolve) => subscription.once('caughtUp', () => resolve()));
      const received: string[] = [];
      const gotTwo = new Promise<void>((resolve) => {
        subscription.on('data', (resolved) => {
          received.push(resolved.event?.type ?? '?');
          signals.push(`event:${resolved.event?.type ?? '?'}`);
          if (received.length === 2) resolve();
        });
      });
      void confirmed.then(() => signals.push('confirmation'));
      await caughtUp;
      signals.push('caughtUp');
      await client.appendToStream(`${prefix}-2`, jsonEvent({ type: 'Live', data: {} }));
      await gotTwo;
      expect(received).toEqual(['Before', 'Live']);
      expect(signals).toEqual(['confirmation', 'event:Before', 'caughtUp', 'event:Live']);
    } finally {
      await subscription.unsubscribe();
    }
  });
});
