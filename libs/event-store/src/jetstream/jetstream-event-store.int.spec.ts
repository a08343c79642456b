import { randomUUID } from 'node:crypto';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { connect, type NatsConnection } from 'nats';
import { describeEventStoreContract } from '../event-store.contract';
import { FIRST_REVISION_HEADER, LAST_REVISION_HEADER, POSITIONS_PER_MESSAGE, subjectForStream } from './jetstream-codec';
import { WrongExpectedVersionError } from '../event-store.port';
import { JetStreamEventStore } from './jetstream-event-store';

let server: RunningNatsServer | undefined;

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server?.stop();
});

function natsUrl(): string {
  if (!server) throw new Error('nats-server did not start');
  return server.url;
}

describeEventStoreContract('jetstream', () => JetStreamEventStore.connect({ servers: natsUrl(), streamName: 'CONTRACT_EVENTS', subjectPrefix: 'contract-events' }));

describe('JetStreamEventStore specifics', () => {
  let store: JetStreamEventStore;
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl() });
    // A short dedupe window so "retry after the window" is testable without waiting minutes.
    store = await JetStreamEventStore.connect({ servers: nc, streamName: 'SPECIFICS', subjectPrefix: 'specifics', duplicateWindowMs: 200 });
  });

  afterAll(async () => {
    await store?.close();
    await nc?.close();
  });

  const event = (type: string) => ({ id: randomUUID(), type, data: { type } });

  it('stores a multi-event append as exactly one message carrying the revisions in headers', async () => {
    const stream = `listing-${randomUUID()}.price.changes`;
    const jsm = await nc.jetstreamManager();
    await store.append(stream, [event('A')], { expectedRevision: 'no_stream' });
    const before = (await jsm.streams.info('SPECIFICS')).state.messages;
    const result = await store.append(stream, [event('B'), event('C'), event('D')], { expectedRevision: 0 });
    expect((await jsm.streams.info('SPECIFICS')).state.messages).toBe(before + 1);

    const message = await jsm.streams.getMessage('SPECIFICS', { last_by_subj: subjectForStream('specifics', stream) });
    expect(message.header.get(FIRST_REVISION_HEADER)).toBe('1');
    expect(message.header.get(LAST_REVISION_HEADER)).toBe('3');
    expect(message.header.get('Nats-Msg-Id')).toMatch(/^[0-9a-f]{64}$/);
    expect(result).toEqual({ nextExpectedRevision: 3, position: message.seq * POSITIONS_PER_MESSAGE + 2 });
  });

  it('recognises a retry arriving after the duplicate window as the original append', async () => {
    const stream = `listing-${randomUUID()}`;
    const batch = [event('A'), event('B')];
    const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
    await store.append(stream, [event('C')], { expectedRevision: 1 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
  });

  it('creates the JetStream stream with subjects under the prefix and leaves a borrowed connection open on close', async () => {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info('SPECIFICS');
    expect(info.config.subjects).toEqual(['specifics.>']);
    expect(info.config.duplicate_window).toBe(200 * 1_000_000);

    const second = await JetStreamEventStore.connect({ servers: nc, streamName: 'SPECIFICS', subjectPrefix: 'specifics' });
    expect(await second.isReady()).toBe(true);
    await second.close();
    expect(nc.isClosed()).toBe(false);
    expect(await store.isReady()).toBe(true);
  });

  it('never lets a stale remembered head through when another instance appended meanwhile', async () => {
    const other = await JetStreamEventStore.connect({ servers: nc, streamName: 'SPECIFICS', subjectPrefix: 'specifics' });
    const stream = `advert-${randomUUID()}`;
    await store.append(stream, [event('A')], { expectedRevision: 'no_stream' });
    await other.append(stream, [event('B')], { expectedRevision: 0 });
    // `store` remembers revision 0 as the head; the server's sequence check must still refuse.
    const failure = await store.append(stream, [event('C')], { expectedRevision: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WrongExpectedVersionError);
    expect((failure as WrongExpectedVersionError).actual).toBe(1);
    // Another instance created a stream this one never saw: `no_stream` must fail too.
    const fresh = `advert-${randomUUID()}`;
    await other.append(fresh, [event('A')], { expectedRevision: 'no_stream' });
    await expect(store.append(fresh, [event('X')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(store.append(stream, [event('C')], { expectedRevision: 1 })).resolves.toMatchObject({ nextExpectedRevision: 2 });
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    await other.close();
  });

  it('appends at a head it had to look up only once the event loop has had its turn', async () => {
    // A store that knows no head (as after a restart) looks each one up before it appends.
    let turns = 0;
    let giveTurn: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (giveTurn = resolve));
    const restarted = await JetStreamEventStore.connect({
      servers: nc,
      streamName: 'SPECIFICS',
      subjectPrefix: 'specifics',
      yieldToEventLoop: () => {
        turns++;
        return gate;
      },
    });
    const streams = Array.from({ length: 5 }, () => `advert-${randomUUID()}`);
    for (const stream of streams) await store.append(stream, [event('A')], { expectedRevision: 'no_stream' });
    const jsm = await nc.jetstreamManager();
    const before = (await jsm.streams.info('SPECIFICS')).state.messages;

    const appending = Promise.all(streams.map((stream) => restarted.append(stream, [event('B')], { expectedRevision: 0 })));
    await until(() => turns === streams.length);
    // Every look-up is answered and waits for its turn; none has published its commit meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await jsm.streams.info('SPECIFICS')).state.messages).toBe(before);

    giveTurn();
    expect((await appending).map((result) => result.nextExpectedRevision)).toEqual(streams.map(() => 1));
    expect((await jsm.streams.info('SPECIFICS')).state.messages).toBe(before + streams.length);
    // The head it appended at is known now: the next append needs no look-up, hence no turn.
    await restarted.append(streams[0] ?? '', [event('C')], { expectedRevision: 1 });
    expect(turns).toBe(streams.length);
    await restarted.close();
  });

  it('appends at the head a caller gives (lastPosition) without looking it up, and looks it up when that head is stale', async () => {
    let lookUps = 0;
    // A store that knows no head, as after a restart; its look-ups are counted by the turns they ask for.
    const restarted = await JetStreamEventStore.connect({
      servers: nc,
      streamName: 'SPECIFICS',
      subjectPrefix: 'specifics',
      yieldToEventLoop: () => {
        lookUps++;
        return undefined;
      },
    });
    const stream = `advert-${randomUUID()}`;
    await store.append(stream, [event('A')], { expectedRevision: 'no_stream' });
    const second = await store.append(stream, [event('B')], { expectedRevision: 0 });

    await expect(restarted.append(stream, [event('C')], { expectedRevision: 1, lastPosition: second.position })).resolves.toMatchObject({ nextExpectedRevision: 2 });
    expect(lookUps).toBe(0);
    // Another writer went on; a head given from before that is refused by the server and looked up.
    await store.append(stream, [event('D')], { expectedRevision: 2 });
    const other = await JetStreamEventStore.connect({ servers: nc, streamName: 'SPECIFICS', subjectPrefix: 'specifics', yieldToEventLoop: () => void lookUps++ });
    await expect(other.append(stream, [event('E')], { expectedRevision: 3, lastPosition: second.position })).resolves.toMatchObject({ nextExpectedRevision: 4 });
    expect(lookUps).toBe(1);
    expect((await store.readStream(stream)).map((e) => [e.type, e.revision])).toEqual([
      ['A', 0],
      ['B', 1],
      ['C', 2],
      ['D', 3],
      ['E', 4],
    ]);
    await other.close();
    await restarted.close();
  });

  it('ignores a lastPosition without a numeric expected revision, or one that is no position at all', async () => {
    let lookUps = 0;
    /** A store that knows no head, as after a restart; its look-ups are counted by the turns they ask for. */
    const restartedStore = () => JetStreamEventStore.connect({ servers: nc, streamName: 'SPECIFICS', subjectPrefix: 'specifics', yieldToEventLoop: () => void lookUps++ });
    const stream = `advert-${randomUUID()}`;
    const first = await store.append(stream, [event('A')], { expectedRevision: 'no_stream' });
    const restarted = await restartedStore();
    await expect(restarted.append(stream, [event('X')], { expectedRevision: 'no_stream', lastPosition: first.position })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(restarted.append(stream, [event('B')], { expectedRevision: 'any', lastPosition: first.position })).resolves.toMatchObject({ nextExpectedRevision: 1 });
    await restarted.close();
    for (const [revision, lastPosition] of [
      [1, Number.NaN],
      [2, -5],
      [3, POSITIONS_PER_MESSAGE - 1],
    ] as const) {
      const fresh = await restartedStore();
      const before = lookUps;
      await expect(fresh.append(stream, [event('C')], { expectedRevision: revision, lastPosition })).resolves.toMatchObject({ nextExpectedRevision: revision + 1 });
      // Appended at the right revision after the same look-up as without a position.
      expect(lookUps).toBe(before + 1);
      await fresh.close();
    }
    expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
    // Below the first commit's positions: taken as a head, it would be "no message yet", which an
    // empty stream passes. Ignored, the append is refused as for any missing stream.
    const empty = `advert-${randomUUID()}`;
    const guessed = await restartedStore();
    await expect(guessed.append(empty, [event('Y')], { expectedRevision: 0, lastPosition: POSITIONS_PER_MESSAGE - 1 })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.readStream(empty)).toEqual([]);
    await guessed.close();
  });

  it('rejects more events in one append than a commit can address', async () => {
    const tooMany = Array.from({ length: POSITIONS_PER_MESSAGE + 1 }, () => event('X'));
    await expect(store.append(`big-${randomUUID()}`, tooMany, { expectedRevision: 'any' })).rejects.toThrow(RangeError);
  });
});
