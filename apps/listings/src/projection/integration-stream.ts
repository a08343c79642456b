import { RetentionPolicy, StorageType, type NatsConnection } from 'nats';
import { LISTINGS_INTEGRATION_STREAM, LISTINGS_INTEGRATION_SUBJECTS } from '@immo/contracts';
import { ensureStream } from '@immo/event-store';
import type { PublishIntegrationEvent } from './outbox-relay';

const SECOND_NS = 1_000_000_000;
/** How long a publish may wait for its acknowledgement before the relay retries it. */
const PUBLISH_TIMEOUT_MS = 5000;

/**
 * The JetStream stream integration events go to (created if missing), and a publisher for the
 * outbox relay that sends each event's id as `Nats-Msg-Id`.
 */
export async function openIntegrationStream(nats: NatsConnection): Promise<PublishIntegrationEvent> {
  await ensureStream(await nats.jetstreamManager(), {
    name: LISTINGS_INTEGRATION_STREAM,
    subjects: [LISTINGS_INTEGRATION_SUBJECTS.all],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: 2 * 60 * SECOND_NS,
    max_age: 7 * 24 * 3600 * SECOND_NS,
  });
  const js = nats.jetstream({ timeout: PUBLISH_TIMEOUT_MS });
  return async (subject, eventId, payload) => {
    await js.publish(subject, Buffer.from(payload, 'utf8'), { msgID: eventId });
  };
}
