export * from './advert.events';
export * from './advert';
export * from './advert.upcast';
export * from './property-grouping';
export * from './property-document';
export * from './webhook-kinds';
export * from './document-changes';
export * from './timestamps';
