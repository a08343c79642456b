import { Logger } from '@nestjs/common';
import { JSONCodec, RetentionPolicy, StorageType, type JetStreamClient, type NatsConnection } from 'nats';
import { LISTINGS_INTEGRATION_STREAM, LISTINGS_INTEGRATION_SUBJECTS, type ListingsIntegrationEvent } from '@immo/contracts';

const codec = JSONCodec<ListingsIntegrationEvent>();
const MAX_IN_FLIGHT = 2000;

/**
 * Publishes integration events on JetStream with `Nats-Msg-Id` = the event id, so a replayed
 * projection does not publish twice within the duplicate window, and consumers can drop older
 * duplicates by id. Publishes are pipelined; `settle()` waits for every acknowledgement and is
 * called before the projection stores its checkpoint.
 */
export class IntegrationPublisher {
  private readonly logger = new Logger(IntegrationPublisher.name);
  private readonly pending = new Set<Promise<unknown>>();
  private failure: unknown = null;
  private published = 0;

  private constructor(private readonly js: JetStreamClient) {}

  static async open(nats: NatsConnection): Promise<IntegrationPublisher> {
    const jsm = await nats.jetstreamManager();
    const config = {
      name: LISTINGS_INTEGRATION_STREAM,
      subjects: [LISTINGS_INTEGRATION_SUBJECTS.all],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: 2 * 60 * 1_000_000_000,
      max_age: 7 * 24 * 3600 * 1_000_000_000,
    };
    try {
      await jsm.streams.info(LISTINGS_INTEGRATION_STREAM);
    } catch {
      await jsm.streams.add(config);
    }
    return new IntegrationPublisher(nats.jetstream());
  }

  get publishedCount(): number {
    return this.published;
  }

  async publish(event: ListingsIntegrationEvent): Promise<void> {
    if (this.failure) throw this.failure;
    const subject =
      event.type === 'property.created'
        ? LISTINGS_INTEGRATION_SUBJECTS.propertyCreated
        : event.type === 'property.changed'
          ? LISTINGS_INTEGRATION_SUBJECTS.propertyChanged
          : LISTINGS_INTEGRATION_SUBJECTS.advertEvent(event.kind);
    const ack = this.js.publish(subject, codec.encode(event), { msgID: event.id }).then(
      () => {
        this.published++;
      },
      (error: unknown) => {
        this.failure = error;
        this.logger.error(`publishing ${event.id} failed: ${String(error)}`);
      },
    );
    this.pending.add(ack);
    void ack.finally(() => this.pending.delete(ack));
    if (this.pending.size >= MAX_IN_FLIGHT) await Promise.race(this.pending);
  }

  /** Resolves once every publish so far is acknowledged; throws if one failed. */
  async settle(): Promise<void> {
    await Promise.all(this.pending);
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
  }
}
