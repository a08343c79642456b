export * from './document-store.port';
export { CommitConflictError, DocumentStoreClosedError, DocumentStoreFailedError, DuplicateKeyError } from './errors';
export { type DocumentStoreConfig, createDocumentStore } from './create-document-store';
export {
  EmbeddedDocumentStore,
  type EmbeddedDocumentStoreOptions,
} from './embedded/embedded-document-store';
export { EmbeddedDocumentCollection, type QueryStats } from './embedded/embedded-collection';
// The MongoDB adapter is reached through `createDocumentStore` only, which loads it when chosen.
export type { MongoDocumentStoreOptions } from './mongo/mongo-document-store';
export {
  EARTH_RADIUS_METRES,
  type LonLat,
  haversineMetres,
  haversineRadians,
  metresToRadians,
  pointInPolygon,
  pointInRing,
  radiansToMetres,
} from './geo/geo-math';
export { GeoQueryError } from './geo/geo-query';
export { SharedDocumentStore, type SharedDocumentStoreOptions } from './shared/shared-document-store';
export { serveDocumentStores, type DocumentStoreServer, type DocumentStoreServerOptions } from './shared/document-store-server';
export { sharedStoreSubject, sharedStorePartSubject, SHARED_STORE_SUBJECTS, SHARED_STORE_PART_SUBJECTS } from './shared/shared-store-protocol';
