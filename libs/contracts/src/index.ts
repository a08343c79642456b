export * from './services/service-names';
export * from './rpc/violation';
export * from './rpc/rpc-error';
export * from './rpc/validate-payload';
export * from './health/ping';
export * from './listings';
export * from './geo/geo-queries';
