import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, JSONCodec, connect, type ConnectionOptions, type NatsConnection } from 'nats';
import {
  LISTINGS_INTEGRATION_STREAM,
  listingsIntegrationEventSchema,
  type IngestAdvertsReply,
  type ListingsIntegrationEvent,
  type ProjectionStatusReply,
  type PropertyDocument,
} from '@immo/contracts';
import type { StackFixture } from '@immo/stack';

const codec = JSONCodec<unknown>();
export const adminHeaders = (fixture: StackFixture) => ({ 'X-API-KEY': fixture.stack.adminApiKey });

export async function status(fixture: StackFixture): Promise<ProjectionStatusReply> {
  const response = await fixture.get('/admin/read-models/properties/status', adminHeaders(fixture));
  if (response.status !== 200) throw new Error(`status answered ${response.status}`);
  return response.body as ProjectionStatusReply;
}

/**
 * Sends a batch until it is answered 200: a crashed or starting listings answers 503/504, and
 * sending the same snapshots again appends nothing twice.
 */
export async function ingestUntilAccepted(fixture: StackFixture, snapshots: unknown[], deadlineMs = 60_000): Promise<IngestAdvertsReply> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      const response = await fixture.send('POST', '/admin/adverts', snapshots, adminHeaders(fixture));
      if (response.status === 200) return response.body as IngestAdvertsReply;
      if (response.status < 500) throw new Error(`ingestion answered ${response.status}: ${JSON.stringify(response.body)}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('ingestion answered')) throw error;
    }
    if (Date.now() > until) throw new Error('ingestion was not accepted in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until the projection stops moving and the outbox is empty. */
export async function settled(fixture: StackFixture, timeoutMs = 60_000): Promise<ProjectionStatusReply> {
  const until = Date.now() + timeoutMs;
  let previous: number | null | undefined;
  for (;;) {
    try {
      const current = await status(fixture);
      if (current.outboxPending === 0 && current.checkpoint === previous) return current;
      previous = current.checkpoint;
    } catch {
      previous = undefined;
    }
    if (Date.now() > until) throw new Error('the projection did not settle in time');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Every property document, by id, read page by page through the API. */
export async function allDocuments(fixture: StackFixture): Promise<Map<string, PropertyDocument>> {
  const documents = new Map<string, PropertyDocument>();
  for (let page = 1; ; page++) {
    const response = await fixture.get(`/documents/properties?itemsPerPage=30&withCoherentPrice=false&page=${page}`);
    const members = (response.body as { 'hydra:member': PropertyDocument[] })['hydra:member'];
    for (const document of members) documents.set(document.uuid, document);
    if (members.length < 30) return documents;
  }
}

/** Every message of the integration stream, decoded and checked against its contract. */
export async function publishedEvents(options: ConnectionOptions): Promise<ListingsIntegrationEvent[]> {
  const nats: NatsConnection = await connect(options);
  try {
    const jsm = await nats.jetstreamManager();
    const total = (await jsm.streams.info(LISTINGS_INTEGRATION_STREAM)).state.messages;
    const name = `check-${randomUUID().slice(0, 8)}`;
    await jsm.consumers.add(LISTINGS_INTEGRATION_STREAM, { durable_name: name, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All });
    const consumer = await nats.jetstream().consumers.get(LISTINGS_INTEGRATION_STREAM, name);
    const events: ListingsIntegrationEvent[] = [];
    while (events.length < total) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      for await (const message of batch) events.push(listingsIntegrationEventSchema.parse(codec.decode(message.data)));
    }
    await jsm.consumers.delete(LISTINGS_INTEGRATION_STREAM, name);
    return events;
  } finally {
    await nats.close();
  }
}
