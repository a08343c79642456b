export * from './stack';
export * from './stack-fixture';
export * from './nats-credentials';
