export * from './advert-snapshot.schema';
export * from './property-document';
export * from './property-document-times';
export * from './listings-messages';
export * from './listings-integration-events';
export * from './property-page-text';
export * from './sample-property-document';
