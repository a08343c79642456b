import type { EventStore } from './event-store.port';
import { JetStreamEventStore } from './jetstream/jetstream-event-store';

export type EventStoreConfig =
  | {
      /** Embedded default: the NATS server the services already talk over. */
      kind: 'jetstream';
      natsUrl: string;
      streamName?: string;
      subjectPrefix?: string;
      duplicateWindowMs?: number;
    }
  | {
      /** Production: an EventStoreDB node or cluster, e.g. `esdb://host:2113?tls=false`. */
      kind: 'eventstoredb';
      url: string;
    };

/** Picks the adapter from configuration, so services depend on the port only. */
export async function createEventStore(config: EventStoreConfig): Promise<EventStore> {
  switch (config.kind) {
    case 'jetstream':
      return JetStreamEventStore.connect({
        servers: config.natsUrl,
        ...(config.streamName !== undefined ? { streamName: config.streamName } : {}),
        ...(config.subjectPrefix !== undefined ? { subjectPrefix: config.subjectPrefix } : {}),
        ...(config.duplicateWindowMs !== undefined ? { duplicateWindowMs: config.duplicateWindowMs } : {}),
      });
    case 'eventstoredb':
      return connectEventStoreDb(config.url);
  }
}

/**
 * An EventStoreDB event store. Its module is loaded only when chosen: the gRPC client is a few
 * hundred milliseconds of start-up and a heap's worth of modules in a service that runs embedded.
 */
export function connectEventStoreDb(url: string): Promise<EventStore> {
  const { EventStoreDbEventStore } = require('./eventstoredb/eventstoredb-event-store') as typeof import('./eventstoredb/eventstoredb-event-store');
  return EventStoreDbEventStore.connect({ url });
}
