/** The process's NATS connection, as Nest provides it to services' classes. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
