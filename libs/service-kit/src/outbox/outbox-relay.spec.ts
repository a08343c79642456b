import { Logger } from '@nestjs/common';
import { ErrorCode, NatsError } from 'nats';
import { integrationSubjectOf, listingsIntegrationEventSchema, type ListingsIntegrationEvent } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { OutboxRelay, outboxId, type DeadLetterRecord, type OutboxRecord, type PublishIntegrationEvent } from './outbox-relay';

const OUTBOX_COLLECTION = { name: 'test_outbox', indexes: [] };
const DEAD_LETTERS_COLLECTION = { name: 'test_outbox_dead_letters', indexes: [] };

const PROPERTY_ID = '0f5d5f2e-3d1c-5a7e-9c41-6c0f1b2a3d4e';
const ADVERT_ID = '6c0f1b2a-3d4e-5a7e-9c41-0f5d5f2e3d1c';

/** An outbox record holding a valid `ad.update.price` integration event. */
function aRecord(position: number, index = 0): OutboxRecord {
  const event: ListingsIntegrationEvent = listingsIntegrationEventSchema.parse({
    id: `${ADVERT_ID}:${position}:ad.update.price`,
    type: 'advert.event',
    kind: 'ad.update.price',
    propertyId: PROPERTY_ID,
    advertId: ADVERT_ID,
    occurredAt: '2026-03-05T08:00:00+00:00',
    adEvent: { fieldName: 'price', fieldOldValue: '289000', fieldNewValue: '275000', percentVariation: '-4.84', createdAt: '2026-03-05T08:00:00+00:00' },
    changedFields: ['price'],
    document: { uuid: PROPERTY_ID },
  });
  return { _id: outboxId(position, index), revision: position, subject: integrationSubjectOf(event), eventId: event.id, payload: JSON.stringify(event) };
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Runs pending promise callbacks (the in-memory store answers through promises only). */
const flush = () => jest.advanceTimersByTimeAsync(0);

describe('OutboxRelay', () => {
  let store: EmbeddedDocumentStore;
  let publish: jest.Mock<ReturnType<PublishIntegrationEvent>, Parameters<PublishIntegrationEvent>>;
  let relay: OutboxRelay;

  const seed = (...records: OutboxRecord[]) => store.collection<OutboxRecord>(OUTBOX_COLLECTION).bulkUpsert(records);
  const stored = async () => (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => r._id);
  const publishedIds = () => publish.mock.calls.map(([, eventId]) => eventId);

  beforeEach(() => {
    jest.useFakeTimers();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    store = new EmbeddedDocumentStore();
    publish = jest.fn<ReturnType<PublishIntegrationEvent>, Parameters<PublishIntegrationEvent>>().mockResolvedValue(undefined);
    relay = new OutboxRelay(store, publish, { outbox: OUTBOX_COLLECTION, deadLetters: DEAD_LETTERS_COLLECTION });
  });

  /** Started over the empty outbox: what each test then writes and kicks is what it drains. */
  const started = async () => {
    relay.start();
    await flush();
  };

  afterEach(async () => {
    await relay.stop();
    await store.close();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  describe('given records written out of order', () => {
    it('when started, then they are published in _id order (position, then index), with their subjects, and deleted', async () => {
      const records = [aRecord(10, 0), aRecord(2, 1), aRecord(2, 0), aRecord(9, 3)];
      await seed(...records);

      relay.start();
      await flush();

      expect(publish.mock.calls.map(([subject, eventId]) => [subject, eventId])).toEqual(
        [aRecord(2, 0), aRecord(2, 1), aRecord(9, 3), aRecord(10, 0)].map((r) => [r.subject, r.eventId]),
      );
      expect(publish.mock.calls[0]?.[2]).toEqual(aRecord(2, 0).payload);
      expect(await relay.pending()).toBe(0);
      expect(relay.publishedCount).toBe(4);
      expect(relay.failedAttempts).toBe(0);
    });
  });

  describe('given a relay never started', () => {
    it('when its writer kicks it with committed records, then nothing is published or retried until it is started, and then everything is', async () => {
      const records = [aRecord(1), aRecord(2)];
      await seed(...records);

      relay.kick(records);
      await flush();
      await jest.advanceTimersByTimeAsync(60_000);
      expect(publish).not.toHaveBeenCalled();
      expect(jest.getTimerCount()).toBe(0);

      relay.start();
      await flush();
      expect(publishedIds()).toEqual(records.map((r) => r.eventId));
      expect(await relay.pending()).toBe(0);
    });

    it('when its store is closed under it, then no retry is left to run', async () => {
      await seed(aRecord(1));
      relay.kick();
      await store.close();
      await jest.advanceTimersByTimeAsync(60_000);

      expect(publish).not.toHaveBeenCalled();
      expect(relay.failedAttempts).toBe(0);
    });
  });

  describe('given more records than one page', () => {
    it('when drained, then every page is published, in order', async () => {
      await started();
      const records = Array.from({ length: 1203 }, (_, i) => aRecord(i + 1));
      await seed(...records.slice().reverse());

      relay.kick();
      await flush();

      expect(publishedIds()).toEqual(records.map((r) => r.eventId));
      expect(relay.publishedCount).toBe(1203);
      expect(await relay.pending()).toBe(0);
    });
  });

  describe('given the records handed over with their commit', () => {
    /** Records read from the store (a read of ids only, for a page, does not count). */
    const recordReads = () => {
      const outbox = store.collection<OutboxRecord>(OUTBOX_COLLECTION);
      const find = jest.spyOn(outbox, 'find');
      return () => find.mock.calls.filter(([, options]) => options?.projection === undefined).length;
    };

    it('when kicked with them, then they are published without being read back from the store', async () => {
      await started();
      const records = Array.from({ length: 60 }, (_, i) => aRecord(i + 1));
      await seed(...records);
      const reads = recordReads();

      relay.kick(records);
      await flush();

      expect(reads()).toBe(0);
      expect(publish.mock.calls).toEqual(records.map((r) => [r.subject, r.eventId, r.payload, r._id]));
      expect(await relay.pending()).toBe(0);
    });

    it('when some of the outbox was not handed over, then those are read from the store, and the order is the outbox order', async () => {
      await started();
      const records = Array.from({ length: 60 }, (_, i) => aRecord(i + 1));
      await seed(...records);
      const reads = recordReads();

      relay.kick(records.filter((_, i) => i % 3 !== 0));
      await flush();

      expect(reads()).toBeGreaterThan(0);
      expect(publish.mock.calls).toEqual(records.map((r) => [r.subject, r.eventId, r.payload, r._id]));
    });

    it('when a handed-over record is not in the store, then it is not published: the store says what is committed', async () => {
      await started();
      await seed(aRecord(1), aRecord(3));

      relay.kick([aRecord(1), aRecord(2), aRecord(3)]);
      await flush();

      expect(publishedIds()).toEqual([aRecord(1).eventId, aRecord(3).eventId]);
      // Not kept either: once it is committed, it is read from the store like any other.
      await seed(aRecord(2));
      const reads = recordReads();
      relay.kick();
      await flush();
      expect(publishedIds()).toEqual([aRecord(1), aRecord(3), aRecord(2)].map((r) => r.eventId));
      expect(reads()).toBe(1);
    });

    it('when more are handed over than it keeps, then the rest are read from the store and all are published in order', async () => {
      await started();
      const records = Array.from({ length: 5_200 }, (_, i) => aRecord(i + 1));
      await seed(...records);
      const reads = recordReads();

      relay.kick(records);
      await flush();

      expect(publishedIds()).toEqual(records.map((r) => r.eventId));
      // 5,000 kept: the last 200 are read, 25 at a time.
      expect(reads()).toBe(8);
      expect(await relay.pending()).toBe(0);
    });
  });

  describe('given an empty outbox', () => {
    it('when kicked, then nothing is published and it is settled', async () => {
      await started();
      relay.kick();
      await flush();

      expect(publish).not.toHaveBeenCalled();
      expect(await relay.pending()).toBe(0);
      await expect(relay.settled(100)).resolves.toBe(true);
    });
  });

  describe('settled', () => {
    it('given an empty outbox, when waiting with no time at all, then it is settled', async () => {
      await expect(relay.settled(0)).resolves.toBe(true);
    });

    it('given a drain that empties the outbox during the last pause before the deadline, when waiting, then it is settled', async () => {
      await started();
      await seed(aRecord(1));
      const ack = deferred();
      publish.mockReturnValueOnce(ack.promise);
      relay.kick();
      let result: boolean | undefined;
      void relay.settled(100).then((r) => (result = r));

      await jest.advanceTimersByTimeAsync(90);
      ack.resolve();
      await jest.advanceTimersByTimeAsync(10);

      expect(result).toBe(true);
    });
  });

  describe('given the broker refuses one record of a page', () => {
    beforeEach(async () => {
      await seed(aRecord(1), aRecord(2), aRecord(3));
      publish.mockImplementation((_subject, eventId) =>
        eventId === aRecord(2).eventId && publish.mock.calls.length <= 3 ? Promise.reject(new Error('no ack')) : Promise.resolve(),
      );
    });

    it('when drained, then only the acknowledged records are deleted and the refused one stays', async () => {
      relay.start();
      await flush();

      expect(await stored()).toEqual([aRecord(2)._id]);
      expect(relay.publishedCount).toBe(2);
      expect(relay.failedAttempts).toBe(1);
      expect(await relay.pending()).toBe(1);
    });

    it('when the first backoff (100 ms) has passed, then the refused record is published again and deleted', async () => {
      relay.start();
      await flush();

      await jest.advanceTimersByTimeAsync(99);
      expect(publish).toHaveBeenCalledTimes(3);
      await jest.advanceTimersByTimeAsync(1);

      expect(publishedIds()).toEqual([aRecord(1), aRecord(2), aRecord(3), aRecord(2)].map((r) => r.eventId));
      expect(await stored()).toEqual([]);
      expect(relay.publishedCount).toBe(3);
      expect(relay.failedAttempts).toBe(1);
    });
  });

  describe('given a record the broker can never take (over its payload limit)', () => {
    beforeEach(async () => {
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      await seed(aRecord(1), aRecord(2), aRecord(3));
      publish.mockImplementation((_subject, eventId) =>
        eventId === aRecord(2).eventId ? Promise.reject(NatsError.errorForCode(ErrorCode.MaxPayloadExceeded)) : Promise.resolve(),
      );
    });

    it('when drained, then it is set aside as a dead letter and holds nothing back', async () => {
      relay.start();
      await flush();

      expect(await stored()).toEqual([]);
      expect(relay.publishedCount).toBe(2);
      expect(relay.deadLetterCount).toBe(1);
      expect(relay.failedAttempts).toBe(0);
      const dead = await store.collection<DeadLetterRecord>(DEAD_LETTERS_COLLECTION).find({});
      expect(dead.map((record) => [record.eventId, record.reason])).toEqual([[aRecord(2).eventId, expect.stringContaining('MAX_PAYLOAD_EXCEEDED')]]);

      // Nothing is retried: no timer is left and a new record goes through at once.
      await seed(aRecord(4));
      relay.kick();
      await flush();
      expect(publishedIds().filter((id) => id === aRecord(2).eventId)).toHaveLength(1);
      expect(await stored()).toEqual([]);
    });
  });

  describe('given the broker refuses everything', () => {
    beforeEach(async () => {
      await seed(aRecord(1));
      publish.mockRejectedValue(new Error('broker down'));
    });

    it('when retrying, then the delay starts at 100 ms and doubles', async () => {
      relay.start();
      await flush();
      const callsAt: number[] = [];
      for (const ms of [99, 1, 199, 1, 399, 1]) {
        await jest.advanceTimersByTimeAsync(ms);
        callsAt.push(publish.mock.calls.length);
      }

      // t=99: 1, t=100: 2, t=299: 2, t=300: 3, t=699: 3, t=700: 4
      expect(callsAt).toEqual([1, 2, 2, 3, 3, 4]);
      expect(relay.failedAttempts).toBe(4);
      expect(await relay.pending()).toBe(1);
    });

    it('when retrying for long, then the delay stops growing at 5 s', async () => {
      relay.start();
      await flush();
      // 100 + 200 + 400 + 800 + 1600 + 3200 = 6300 ms for the first six retries.
      await jest.advanceTimersByTimeAsync(6300);
      expect(publish).toHaveBeenCalledTimes(7);

      await jest.advanceTimersByTimeAsync(4999);
      expect(publish).toHaveBeenCalledTimes(7);
      await jest.advanceTimersByTimeAsync(1);
      expect(publish).toHaveBeenCalledTimes(8);
      await jest.advanceTimersByTimeAsync(5000);
      expect(publish).toHaveBeenCalledTimes(9);
    });

    it('when kicked while a retry is scheduled, then it does not publish before the retry is due', async () => {
      relay.start();
      await flush();

      await jest.advanceTimersByTimeAsync(50);
      relay.kick();
      await flush();

      expect(publish).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(50);
      expect(publish).toHaveBeenCalledTimes(2);
    });

    it('when stopped, then it retries no more and keeps the record', async () => {
      relay.start();
      await flush();

      await relay.stop();
      await jest.advanceTimersByTimeAsync(60_000);
      relay.kick();
      await flush();

      expect(publish).toHaveBeenCalledTimes(1);
      expect(await relay.pending()).toBe(1);
    });

    it('when stopped while a publish is failing, then no retry is left scheduled', async () => {
      const nack = deferred();
      publish.mockReturnValueOnce(nack.promise);
      relay.start();
      await flush();

      const stopping = relay.stop();
      nack.reject(new Error('broker down'));
      await stopping;

      expect(jest.getTimerCount()).toBe(0);
      expect(await relay.pending()).toBe(1);
    });

    it('when started again after a stop, then it publishes again', async () => {
      relay.start();
      await flush();
      await relay.stop();
      publish.mockResolvedValue(undefined);

      relay.start();
      await flush();

      expect(publish).toHaveBeenCalledTimes(2);
      expect(await relay.pending()).toBe(0);
    });

    it('when waiting for it to settle, then the wait gives up after the timeout with false', async () => {
      relay.start();
      const settled = relay.settled(1000);

      await jest.advanceTimersByTimeAsync(1000);

      await expect(settled).resolves.toBe(false);
      expect(await relay.pending()).toBe(1);
    });
  });

  describe('given a publish that succeeds after failures', () => {
    it('when a later publish fails, then the backoff starts again at 100 ms', async () => {
      await started();
      await seed(aRecord(1));
      publish.mockRejectedValueOnce(new Error('no ack')).mockRejectedValueOnce(new Error('no ack'));
      relay.kick();
      await flush();
      await jest.advanceTimersByTimeAsync(100 + 200);
      expect(publish).toHaveBeenCalledTimes(3);
      expect(await relay.pending()).toBe(0);

      await seed(aRecord(2));
      publish.mockRejectedValueOnce(new Error('no ack'));
      relay.kick();
      await flush();
      await jest.advanceTimersByTimeAsync(100);

      expect(publish).toHaveBeenCalledTimes(5);
      expect(await relay.pending()).toBe(0);
    });
  });

  describe('given a drain in progress', () => {
    it('when kicked with a new record, then no second drain runs alongside and the new record is drained right after', async () => {
      await started();
      await seed(aRecord(1));
      const ack = deferred();
      publish.mockReturnValueOnce(ack.promise);
      relay.kick();
      await flush();

      await seed(aRecord(2));
      relay.kick();
      relay.kick();
      await flush();
      expect(publishedIds()).toEqual([aRecord(1).eventId]);

      ack.resolve();
      await flush();

      expect(publishedIds()).toEqual([aRecord(1).eventId, aRecord(2).eventId]);
      expect(await relay.pending()).toBe(0);
    });

    it('when a record is written and kicked just as the drain finds the outbox empty, then a new drain publishes it', async () => {
      await started();
      await seed(aRecord(1));
      const outbox = store.collection<OutboxRecord>(OUTBOX_COLLECTION);
      const find = outbox.find.bind(outbox);
      let reads = 0;
      jest.spyOn(outbox, 'find').mockImplementation(async (filter, options) => {
        const page = await find(filter, options);
        // The drain's second read finds nothing; the write and its kick land before it returns.
        if (++reads === 2) {
          await outbox.upsert(aRecord(2));
          relay.kick();
        }
        return page;
      });

      relay.kick();
      await flush();

      expect(publishedIds()).toEqual([aRecord(1).eventId, aRecord(2).eventId]);
      expect(await stored()).toEqual([]);
    });

    it('when waiting for it to settle, then the wait ends true once the drain has emptied the outbox', async () => {
      await started();
      await seed(aRecord(1));
      const ack = deferred();
      publish.mockReturnValueOnce(ack.promise);
      relay.kick();
      let result: boolean | undefined;
      void relay.settled(1000).then((r) => (result = r));

      await jest.advanceTimersByTimeAsync(200);
      expect(result).toBeUndefined();
      ack.resolve();
      await jest.advanceTimersByTimeAsync(50);

      expect(result).toBe(true);
    });

    it('when stopped, then the stop waits for the publish under way and no further page is read', async () => {
      await started();
      await seed(aRecord(1));
      const ack = deferred();
      publish.mockReturnValueOnce(ack.promise);
      relay.kick();
      await flush();

      let stopped = false;
      const stopping = relay.stop().then(() => (stopped = true));
      await seed(aRecord(2));
      await flush();
      expect(stopped).toBe(false);
      ack.resolve();
      await stopping;

      expect(publishedIds()).toEqual([aRecord(1).eventId]);
      expect(await stored()).toEqual([aRecord(2)._id]);
    });
  });
});
