export * from './nats-server';
export * from './nats-binary';
