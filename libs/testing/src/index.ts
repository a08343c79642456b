export * from './nats-server';
export * from './nats-binary';
export * from './bench-harness';
export * from './http-client';
export * from './webhook-receiver';
export * from './http-load';
export * from './processes-idle';
export * from './event-loop-turns';
