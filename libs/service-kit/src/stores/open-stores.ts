import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { createDocumentStore, SharedDocumentStore, type DocumentStore } from '@immo/document-store';
import { connectEventStoreDb, JetStreamEventStore, type EventStore } from '@immo/event-store';
import { eventStreamOf, type ServiceName } from '@immo/contracts';
import type { ServiceConfig } from '../config/common-config';
import type { ReadinessCheck } from '../health/readiness';
import { exitForRestart } from '../bootstrap/run-service';
import { eventLoopSlice } from '../scheduling/event-loop-slice';

/**
 * The service's event store: a JetStream stream of its own on the embedded runtime
 * (`<SERVICE>_EVENTS`), EventStoreDB in production.
 */
export async function openEventStore(service: ServiceName, config: Pick<ServiceConfig, 'EVENT_STORE' | 'ESDB_URL' | 'NATS_REPLICAS'>, nats: NatsConnection): Promise<EventStore> {
  if (config.EVENT_STORE === 'eventstoredb') return connectEventStoreDb(config.ESDB_URL ?? '');
  return JetStreamEventStore.connect({
    servers: nats,
    streamName: eventStreamOf(service).name,
    subjectPrefix: eventStreamOf(service).subjectPrefix,
    replicas: config.NATS_REPLICAS,
    yieldToEventLoop: () => eventLoopSlice.yieldIfDue(),
  });
}

/**
 * Read models: the embedded (LMDB) store under DATA_DIR/<service>/read-models, MongoDB, or the
 * one-machine shared store (the service's database there, over NATS).
 */
export async function openDocumentStore(service: ServiceName, config: ServiceConfig, nats: NatsConnection): Promise<DocumentStore> {
  if (config.DOCUMENT_STORE === 'mongo') return createDocumentStore({ kind: 'mongo', url: config.MONGO_URL ?? '' });
  if (config.DOCUMENT_STORE === 'shared') return new SharedDocumentStore({ nats, database: service });
  const dataDir = join(config.DATA_DIR, service, 'read-models');
  return createDocumentStore({
    kind: 'embedded',
    dataDir,
    yieldToEventLoop: () => eventLoopSlice.yieldIfSpent(),
    // Its memory is then ahead of its file: only a new process, replaying, is exact again.
    onFailure: (failure) => exitForRestart(service, `read models failed: ${failure.message}`),
  });
}

export function storeReadiness(eventStore: EventStore | null, documentStore: DocumentStore | null): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [];
  if (eventStore) checks.push({ name: 'event-store', isReady: () => eventStore.isReady() });
  if (documentStore) checks.push({ name: 'document-store', isReady: () => documentStore.isReady() });
  return checks;
}
