export * from './event-store.port';
export * from './jetstream/jetstream-event-store';
export * from './eventstoredb/eventstoredb-event-store';
export * from './create-event-store';
export { ensureStream } from './jetstream/ensure-stream';
