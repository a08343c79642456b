export * from './stack';
