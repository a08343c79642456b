import { Logger } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, NatsError, nanos, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';
import { SerialBatches } from '@immo/runtime';
import { ensureJetStream, type StreamSettings } from '../outbox/integration-streams';

const RESTART_MS = 1000;
const PULL_EXPIRES_MS = 5000;
const REDELIVER_AFTER_FAILURE_MS = 1000;

export interface DurableBatchConsumerOptions {
  stream: StreamSettings;
  /** The durable consumer's name: its position survives restarts of this process and of NATS. */
  durable: string;
  /** A new consumer starts with messages published from now on (`new`) or with the whole stream (`all`). */
  deliverFrom: 'new' | 'all';
  /** Messages handled (and stored) together at most. */
  maxBatch: number;
  /** Unacknowledged messages are sent again after this long (a process killed mid-batch). */
  ackWaitMs: number;
  /**
   * Stores the outcome of the messages. Resolving acknowledges them all; throwing has them sent
   * again (the handler must be idempotent: a crash after storing and before the acknowledgement
   * sends them again too).
   */
  handle: (batch: JsMsg[]) => Promise<void>;
}

/**
 * A durable JetStream consumer that acknowledges only after its handler stored the outcome.
 * Messages that arrive while a batch is handled form the next batch, so a busy stream is handled
 * in large commits and a quiet one message at a time, without waiting.
 */
export class DurableBatchConsumer {
  private readonly logger: Logger;
  private messages: ConsumerMessages | null = null;
  private readonly batches: SerialBatches<JsMsg>;
  private stopped = true;
  private handled = 0;
  private failures = 0;

  constructor(
    private readonly nats: NatsConnection,
    private readonly options: DurableBatchConsumerOptions,
  ) {
    this.logger = new Logger(`consumer ${options.durable}`);
    // A batch's failure is handled inside `handleBatch`: the loop never sees one.
    this.batches = new SerialBatches(options.maxBatch, (batch) => this.handleBatch(batch), (error) => this.logger.error(String(error)));
  }

  get handledCount(): number {
    return this.handled;
  }

  get failedBatches(): number {
    return this.failures;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.ensureConsumer();
    void this.follow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.messages?.stop();
    this.messages = null;
    await this.batches.idle();
  }

  private ensureConsumer(): Promise<void> {
    return whileJetStreamSettles(() => this.ensureConsumerOnce());
  }

  private async ensureConsumerOnce(): Promise<void> {
    const { stream, durable, deliverFrom, ackWaitMs, maxBatch } = this.options;
    await ensureJetStream(this.nats, stream);
    const jsm = await this.nats.jetstreamManager();
    try {
      await jsm.consumers.info(stream.name, durable);
      return;
    } catch (error) {
      if (!(error instanceof NatsError) || !/not found/i.test(error.message)) throw error;
    }
    await jsm.consumers.add(stream.name, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: deliverFrom === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      max_ack_pending: maxBatch * 4,
    });
  }

  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        const consumer = await this.nats.jetstream().consumers.get(this.options.stream.name, this.options.durable);
        // Short pulls: after a NATS restart the missed heartbeats show within seconds, and pulling resumes.
        const messages = await consumer.consume({ max_messages: this.options.maxBatch * 2, expires: PULL_EXPIRES_MS });
        this.messages = messages;
        // Stopped while connecting: nothing may be pulled and left unacknowledged.
        if (this.stopped) {
          messages.stop();
          break;
        }
        for await (const message of messages) {
          if (this.stopped) {
            // Sent again at once to whoever consumes next, rather than after the ack wait.
            message.nak();
            break;
          }
          this.batches.push(message);
          // Backpressure: a long backlog waits for its commits instead of piling up here.
          if (this.batches.backlog >= this.options.maxBatch * 2) await this.batches.idle();
        }
      } catch (error) {
        if (!this.stopped) this.logger.warn(`consuming failed (${String(error)}); resuming in ${RESTART_MS} ms`);
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RESTART_MS).unref());
    }
  }

  /** Acknowledges a batch once its outcome is stored, or has it sent again. */
  private async handleBatch(batch: JsMsg[]): Promise<void> {
    try {
      await this.options.handle(batch);
      for (const message of batch) message.ack();
      this.handled += batch.length;
    } catch (error) {
      this.failures++;
      this.logger.error(`handling ${batch.length} messages failed (${String(error)}); they will be sent again`);
      for (const message of batch) message.nak(REDELIVER_AFTER_FAILURE_MS);
    }
  }
}
