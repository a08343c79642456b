import type { EventStore } from './event-store.port';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
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
      return EventStoreDbEventStore.connect({ url: config.url });
  }
}
