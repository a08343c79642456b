export * from './stack';
export * from './stack-fixture';
