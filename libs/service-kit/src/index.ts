export * from './config/load-config';
export * from './config/common-config';
export * from './nats/connect-nats';
export * from './nats/nats-rpc-client';
export * from './rpc/parse-rpc-payload';
export * from './health/readiness';
export * from './bootstrap/service-kit.module';
export * from './bootstrap/run-service';
