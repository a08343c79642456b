import { Logger } from '@nestjs/common';
import { Events, StorageType, type JetStreamClient, type JsMsg, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { ensureJetStream, type StreamSettings } from '../outbox/integration-streams';
import { connectNats } from './connect-nats';
import { DurableBatchConsumer, type DurableBatchConsumerOptions } from './durable-batch-consumer';

/** Short enough that a message a stopped consumer held is sent again within a test. */
const ACK_WAIT_MS = 1500;

let streams = 0;
/** A stream of its own per test, so that no test sees another's messages. */
function aStream(): { settings: StreamSettings; subject: string } {
  streams++;
  return { settings: { name: `DBC_TEST_${streams}`, subjects: [`dbc.test${streams}.>`], storage: StorageType.File }, subject: `dbc.test${streams}.fact` };
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

async function eventually<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > until) throw new Error(`not reached within ${timeoutMs} ms; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const numbersOf = (batch: JsMsg[]) => batch.map((message) => message.json<{ n: number }>().n);

describe('DurableBatchConsumer on a real nats-server', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let js: JetStreamClient;
  const consumers: DurableBatchConsumer[] = [];

  /** A consumer that records every batch it is handed; `handle` decides the outcome. */
  function aConsumer(settings: StreamSettings, options: Partial<DurableBatchConsumerOptions> & { durable: string }) {
    const batches: number[][] = [];
    const { handle, ...rest } = options;
    const consumer = new DurableBatchConsumer(nats, {
      stream: settings,
      deliverFrom: 'all',
      maxBatch: 4,
      ackWaitMs: ACK_WAIT_MS,
      handle: async (batch) => {
        batches.push(numbersOf(batch));
        await handle?.(batch);
      },
      ...rest,
    });
    consumers.push(consumer);
    const seen = () => batches.flat();
    return { consumer, batches, seen };
  }

  async function publish(subject: string, ...numbers: number[]): Promise<void> {
    for (const n of numbers) await js.publish(subject, JSON.stringify({ n }));
  }

  async function consumerInfo(settings: StreamSettings, durable: string) {
    return (await nats.jetstreamManager()).consumers.info(settings.name, durable);
  }

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connectNats({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000 }, { name: 'durable-batch-consumer-test', principal: null });
    js = nats.jetstream();
  });

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    await nats?.drain();
    await server?.stop();
  });

  describe('given messages in the stream', () => {
    it('when consumed, then they are handled in order, in batches no larger than maxBatch, and all acknowledged', async () => {
      const { settings, subject } = aStream();
      await ensureJetStream(nats, settings);
      await publish(subject, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
      const { consumer, batches, seen } = aConsumer(settings, { durable: 'batches' });

      await consumer.start();
      await eventually(() => consumer.handledCount, (n) => n === 10);

      expect(seen()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(Math.max(...batches.map((batch) => batch.length))).toBeLessThanOrEqual(4);
      const info = await eventually(() => consumerInfo(settings, 'batches'), (i) => i.ack_floor.stream_seq === 10);
      expect(info.num_ack_pending).toBe(0);
      expect(consumer.failedBatches).toBe(0);
    });

    it('when the handler has not resolved yet, then nothing of its batch is acknowledged', async () => {
      const { settings, subject } = aStream();
      const gate = deferred();
      const { consumer, seen } = aConsumer(settings, { durable: 'gated', handle: () => gate.promise });
      await consumer.start();

      await publish(subject, 1, 2, 3);
      await eventually(() => seen().length, (n) => n >= 1);
      const during = await eventually(() => consumerInfo(settings, 'gated'), (i) => i.num_ack_pending === 3);
      expect(during.ack_floor.stream_seq).toBe(0);
      expect(consumer.handledCount).toBe(0);

      gate.resolve();
      const after = await eventually(() => consumerInfo(settings, 'gated'), (i) => i.ack_floor.stream_seq === 3);
      expect(after.num_ack_pending).toBe(0);
      expect(consumer.handledCount).toBe(3);
    });
  });

  describe('given a handler that throws', () => {
    it('when a consumer with the same durable starts after it, then it is handed the messages again', async () => {
      const { settings, subject } = aStream();
      const failing = aConsumer(settings, {
        durable: 'retried',
        handle: async () => {
          throw new Error('store unavailable');
        },
      });
      await failing.consumer.start();
      await publish(subject, 1, 2, 3);
      await eventually(() => failing.seen().length, (n) => n >= 3);
      expect(failing.consumer.failedBatches).toBeGreaterThanOrEqual(1);
      expect(failing.consumer.handledCount).toBe(0);
      await failing.consumer.stop();

      const next = aConsumer(settings, { durable: 'retried' });
      await next.consumer.start();

      await eventually(() => next.consumer.handledCount, (n) => n === 3);
      expect([...new Set(next.seen())].sort()).toEqual([1, 2, 3]);
      expect((await eventually(() => consumerInfo(settings, 'retried'), (i) => i.ack_floor.stream_seq === 3)).num_ack_pending).toBe(0);
    });
  });

  describe('given messages handled successfully', () => {
    it('when a new consumer with the same durable starts, then it sees only messages published afterwards', async () => {
      const { settings, subject } = aStream();
      const first = aConsumer(settings, { durable: 'resumed' });
      await first.consumer.start();
      await publish(subject, 1, 2, 3);
      await eventually(() => first.consumer.handledCount, (n) => n === 3);
      await first.consumer.stop();

      // Published while no consumer runs: the durable's position survives, so it is not lost.
      await publish(subject, 4);
      const second = aConsumer(settings, { durable: 'resumed' });
      await second.consumer.start();
      await publish(subject, 5);

      await eventually(() => second.consumer.handledCount, (n) => n === 2);
      await pause(100);
      expect(second.seen()).toEqual([4, 5]);
    });
  });

  describe('given a consumer stopped right after it started', () => {
    it('when a message is published, then it is never handed to the stopped one and a new consumer on the durable gets it at once', async () => {
      const { settings, subject } = aStream();
      // A long ack wait, as in production: a message a stopped consumer still pulled would be held this long.
      const stopped = aConsumer(settings, { durable: 'early-stop', ackWaitMs: 30_000 });
      await stopped.consumer.start();
      await stopped.consumer.stop();

      await publish(subject, 1);
      const next = aConsumer(settings, { durable: 'early-stop', ackWaitMs: 30_000 });
      await next.consumer.start();

      await eventually(() => next.consumer.handledCount, (n) => n === 1, 2000);
      expect(stopped.seen()).toEqual([]);
      expect(next.seen()).toEqual([1]);
    });
  });

  describe("given deliverFrom 'new'", () => {
    it('when the consumer is created, then messages published before it are skipped and those after are handled', async () => {
      const { settings, subject } = aStream();
      await ensureJetStream(nats, settings);
      await publish(subject, 1, 2, 3);
      const { consumer, seen } = aConsumer(settings, { durable: 'fresh', deliverFrom: 'new' });

      await consumer.start();
      await publish(subject, 4, 5);

      await eventually(() => consumer.handledCount, (n) => n === 2);
      await pause(100);
      expect(seen()).toEqual([4, 5]);
    });

    it('when the durable already exists, then a restart resumes where it stopped instead of skipping', async () => {
      const { settings, subject } = aStream();
      const first = aConsumer(settings, { durable: 'fresh-resumed', deliverFrom: 'new' });
      await first.consumer.start();
      await publish(subject, 1);
      await eventually(() => first.consumer.handledCount, (n) => n === 1);
      await first.consumer.stop();

      await publish(subject, 2, 3);
      const second = aConsumer(settings, { durable: 'fresh-resumed', deliverFrom: 'new' });
      await second.consumer.start();

      await eventually(() => second.consumer.handledCount, (n) => n === 2);
      expect(second.seen()).toEqual([2, 3]);
    });
  });

  describe('given the nats-server restarts', () => {
    it('when messages are published after it is back, then the running consumer handles them', async () => {
      const { settings, subject } = aStream();
      const { consumer, seen } = aConsumer(settings, { durable: 'survivor' });
      await consumer.start();
      await publish(subject, 1);
      await eventually(() => consumerInfo(settings, 'survivor'), (i) => i.ack_floor.stream_seq === 1);

      const reconnected = (async () => {
        for await (const status of nats.status()) if (status.type === Events.Reconnect) return;
      })();
      await server.interrupt();
      await server.start();
      await reconnected;
      // JetStream answers again once the server has recovered its store (the id drops a retried publish that did land).
      await eventually(
        () => js.publish(subject, JSON.stringify({ n: 2 }), { timeout: 500, msgID: 'survivor-2' }).then(() => true, () => false),
        (published) => published,
      );
      await publish(subject, 3);

      await eventually(() => consumer.handledCount, (n) => n === 3);
      expect(seen()).toEqual([1, 2, 3]);
    }, 20_000);
  });
});
