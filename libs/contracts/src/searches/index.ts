export * from './searches-messages';
export * from './api-key-format';
export * from './search-record';
