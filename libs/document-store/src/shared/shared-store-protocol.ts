/**
 * The wire between a {@link SharedDocumentStore} and the {@link serveDocumentStores} process:
 * NATS request/reply, one request per port call, msgpack bodies (they keep Dates, RegExps and
 * `undefined` the way the in-process store sees them, where JSON would not).
 */
import { Packr } from 'msgpackr';
import type { CollectionSpec, CommitCondition, DocumentWrite, Filter, FindOptions, PipelineStage, StoredDocument } from '../document-store.port';
import { CommitConflictError, DuplicateKeyError } from '../errors';
import { GeoQueryError } from '../geo/geo-query';

/** Each database (one per service) answers on its own subject. */
export const sharedStoreSubject = (database: string) => `docstore.${database}.v1`;
export const SHARED_STORE_SUBJECTS = 'docstore.*.v1';
/** Pieces of a request larger than the broker's message limit, sent before the request itself. */
export const sharedStorePartSubject = (database: string) => `docstore.${database}.v1.part`;
export const SHARED_STORE_PART_SUBJECTS = 'docstore.*.v1.part';

export type SharedStoreRequest =
  | { op: 'declare'; spec: CollectionSpec }
  | { op: 'find'; collection: string; filter: Filter; options?: FindOptions }
  | { op: 'findById'; collection: string; id: string }
  | { op: 'count'; collection: string; filter: Filter }
  | { op: 'aggregate'; collection: string; pipeline: PipelineStage[] }
  | { op: 'scanPage'; collection: string; after: string | null; limit: number }
  | { op: 'upsert'; collection: string; doc: StoredDocument }
  | { op: 'bulkUpsert'; collection: string; docs: StoredDocument[] }
  | { op: 'deleteById'; collection: string; id: string }
  | { op: 'deleteMany'; collection: string; filter: Filter }
  | { op: 'clear'; collection: string }
  | { op: 'commit'; writes: DocumentWrite[]; expect?: CommitCondition[] }
  | { op: 'flush' }
  | { op: 'ping' }
  /** The request whose pieces were sent under this id. */
  | { op: 'assembled'; partsId: string; parts: number };

export interface SharedStorePart {
  partsId: string;
  index: number;
  bytes: Uint8Array;
}

export type SharedStoreReply = { ok: unknown } | { error: EncodedError };

interface EncodedError {
  name: string;
  message: string;
  collection?: string;
  index?: string;
  key?: unknown;
  documentId?: string;
  expected?: number | null;
  found?: number | null;
}

// Records (shared structures) off: client and server are separate processes with no shared table.
export const wire = new Packr({ useRecords: false, moreTypes: true });

export function encodeError(error: unknown): EncodedError {
  if (error instanceof DuplicateKeyError) {
    return { name: error.name, message: error.message, collection: error.collection, index: error.index, key: error.key, documentId: error.documentId };
  }
  if (error instanceof CommitConflictError) {
    return { name: error.name, message: error.message, collection: error.collection, documentId: error.documentId, expected: error.expected, found: error.found };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** The error the server met, as the caller of the in-process store would have met it. */
export function decodeError(encoded: EncodedError): Error {
  if (encoded.name === 'DuplicateKeyError') {
    return new DuplicateKeyError(encoded.collection ?? '', encoded.index ?? '', encoded.key, encoded.documentId);
  }
  if (encoded.name === 'CommitConflictError') {
    return new CommitConflictError(encoded.collection ?? '', encoded.documentId ?? '', encoded.expected ?? null, encoded.found ?? null);
  }
  if (encoded.name === 'GeoQueryError') return new GeoQueryError(encoded.message);
  const error = new Error(encoded.message);
  error.name = encoded.name;
  return error;
}
