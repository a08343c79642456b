import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, jsonEvent, START, STREAM_EXISTS, streamNameFilter, WrongExpectedVersionError as EsdbWrongExpectedVersionError } from '@eventstore/db-client';
import { describeEventStoreContract } from '../event-store.contract';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
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
}

describe('EventStoreDbEventStore specifics', () => {
  let fake: RunningEventStoreDbFake;
  let store: EventStoreDbEventStore;

  beforeAll(async () => {
    fake = await startEventStoreDbFake({ positionOnReplay: false });
    store = await EventStoreDbEventStore.connect({ url: fake.connectionString });
  });

  afterAll(async () => {
    await store?.close();
    await fake?.stop();
  });

  it('answers a retried append with the original position even when the server leaves it out', async () => {
    const stream = `replay-${randomUUID()}`;
    const batch = [1, 2].map((n) => ({ id: randomUUID(), type: 'Step', data: { n } }));
    const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
    await store.append(stream, [{ id: randomUUID(), type: 'Later', data: {} }], { expectedRevision: 1 });
    expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Step', 'Step', 'Later']);
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
