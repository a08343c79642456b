export * from './advert-snapshot.schema';
export * from './property-document';
