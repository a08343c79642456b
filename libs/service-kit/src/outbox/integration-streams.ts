import { headers as natsHeaders, RetentionPolicy, StorageType, type NatsConnection, type StreamConfig } from 'nats';
import { ALERT_NOTIFICATIONS_STREAM, ALERT_NOTIFICATIONS_SUBJECT, LISTINGS_INTEGRATION_STREAM, LISTINGS_INTEGRATION_SUBJECTS } from '@immo/contracts';
import { ensureStream, whileJetStreamSettles } from '@immo/event-store';
import type { PublishIntegrationEvent } from './outbox-relay';

const SECOND_NS = 1_000_000_000;
/** How long a publish may wait for its acknowledgement before the relay retries it. */
const PUBLISH_TIMEOUT_MS = 5000;

export type StreamSettings = Partial<StreamConfig> & { name: string };

/**
 * The JetStream streams services hand facts over on. Both the producer and the consumer ensure
 * their stream exists (whichever starts first creates it) with the same settings. Messages are
 * kept a week: a consumer down for days resumes where it stopped.
 */
export const LISTINGS_INTEGRATION_STREAM_SETTINGS: StreamSettings = {
  name: LISTINGS_INTEGRATION_STREAM,
  subjects: [LISTINGS_INTEGRATION_SUBJECTS.all],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  duplicate_window: 2 * 60 * SECOND_NS,
  max_age: 7 * 24 * 3600 * SECOND_NS,
};

export const ALERT_NOTIFICATIONS_STREAM_SETTINGS: StreamSettings = {
  name: ALERT_NOTIFICATIONS_STREAM,
  subjects: [ALERT_NOTIFICATIONS_SUBJECT],
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  duplicate_window: 2 * 60 * SECOND_NS,
  max_age: 7 * 24 * 3600 * SECOND_NS,
};

/** A stream's settings with its replica count (`NATS_REPLICAS`). */
export function replicated(settings: StreamSettings, replicas: number): StreamSettings {
  return { ...settings, num_replicas: replicas };
}

export async function ensureJetStream(nats: NatsConnection, settings: StreamSettings): Promise<void> {
  await ensureStream(await whileJetStreamSettles(() => nats.jetstreamManager()), settings);
}

/** The outbox record a message was published from (see `lastPublishedOutboxId`). */
export const OUTBOX_ID_HEADER = 'Outbox-Id';

/**
 * Ensures the stream, and answers a publisher for an outbox relay that sends each message's id as
 * `Nats-Msg-Id` and the outbox record's id as `Outbox-Id`.
 */
export async function openOutboxPublisher(nats: NatsConnection, settings: StreamSettings): Promise<PublishIntegrationEvent> {
  await ensureJetStream(nats, settings);
  const js = nats.jetstream({ timeout: PUBLISH_TIMEOUT_MS });
  return async (subject, eventId, payload, outboxId) => {
    const headers = outboxId === undefined ? undefined : natsHeaders();
    if (headers && outboxId !== undefined) headers.set(OUTBOX_ID_HEADER, outboxId);
    await js.publish(subject, Buffer.from(payload, 'utf8'), { msgID: eventId, ...(headers ? { headers } : {}) });
  };
}

/**
 * The outbox id of the newest message of a stream (null when it is empty or its newest message
 * names none): replicas that each project the same log into outboxes of their own publish the
 * same records in the same order, so a record at or before it was published by one of them.
 */
export async function lastPublishedOutboxId(nats: NatsConnection, stream: string): Promise<string | null> {
  const jsm = await nats.jetstreamManager();
  const { state } = await jsm.streams.info(stream);
  if (state.messages === 0) return null;
  const last = await jsm.streams.getMessage(stream, { seq: state.last_seq });
  return last.header?.get(OUTBOX_ID_HEADER) || null;
}
