import type { StoredDocument } from './document-store.port';
import { isPlainObject } from './document-paths';

/** Both adapters refuse the same malformed documents, before anything is written. */
export function assertStoredDocument(doc: unknown, collection: string): asserts doc is StoredDocument {
  if (!isPlainObject(doc)) throw new TypeError(`${collection}: a document must be a plain object`);
  if (typeof doc['_id'] !== 'string' || doc['_id'] === '') {
    throw new TypeError(`${collection}: a document needs a non-empty string _id`);
  }
  if (typeof doc['revision'] !== 'number' || !Number.isFinite(doc['revision'])) {
    throw new TypeError(`${collection}: document "${doc['_id']}" needs a finite numeric revision`);
  }
}

/** A scan's batch size: a positive integer (a zero would never advance). */
export function assertBatchSize(batchSize: number): void {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
}
