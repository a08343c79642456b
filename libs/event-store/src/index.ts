export * from './event-store.port';
export * from './jetstream/jetstream-event-store';
// The EventStoreDB adapter is reached through `createEventStore` / `connectEventStoreDb` only, which
// load it (and its gRPC client) when chosen.
export type { EventStoreDbEventStoreOptions } from './eventstoredb/eventstoredb-event-store';
export * from './create-event-store';
export { ensureStream } from './jetstream/ensure-stream';
export { whileJetStreamSettles } from './jetstream/while-jetstream-settles';
