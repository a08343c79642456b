import type { DocumentStore, DocumentWrite, StoredDocument } from '@immo/document-store';
import { SEARCH_ROW_VERSION } from '../search/search-row';
import { CHECKPOINTS_COLLECTION, SEARCH_ROWS_COLLECTION, type CheckpointRecord, type SearchRowRecord } from './read-models';
import { SearchIndexProjection } from './search-index.projection';

/**
 * Beside the checkpoints: the `SEARCH_ROW_VERSION` the stored search rows were written with,
 * vouched for up to the search index's checkpoint `revision`. The writer stores it with each batch
 * that moves that checkpoint, and after a recomputation of the rows only in the commit after the
 * last batch, so it never calls current a set of rows still partly of another version. A version
 * that knew nothing of it (version 1) moves the checkpoint without it: rows it wrote after a newer
 * version (a rollback) are so noticed too.
 */
export const SEARCH_ROW_VERSION_ID = 'search-row-version';

export interface SearchRowVersionRecord extends StoredDocument {
  version: number;
}

export interface StoredRowVersion {
  /** Null when no row is stored. */
  version: number | null;
  /** The search index's stored checkpoint. */
  checkpoint: number | null;
}

/** The version the stored search rows were written with. Rows stored without the mark are of version 1. */
export async function storedSearchRowVersion(store: DocumentStore): Promise<StoredRowVersion> {
  const checkpoints = store.collection<StoredDocument>(CHECKPOINTS_COLLECTION);
  const mark = (await checkpoints.findById(SEARCH_ROW_VERSION_ID)) as SearchRowVersionRecord | null;
  const checkpoint = ((await checkpoints.findById(SearchIndexProjection.NAME)) as CheckpointRecord | null)?.position ?? null;
  if (mark !== null) return { version: checkpoint !== null && checkpoint > mark.revision ? 1 : mark.version, checkpoint };
  const [anyRow] = await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({}, { limit: 1, projection: { _id: 1 } });
  return { version: anyRow === undefined ? null : 1, checkpoint };
}

/** The mark of this version, for the rows as of the search index's checkpoint `position`. */
export function searchRowVersionRecord(position: number): SearchRowVersionRecord {
  return { _id: SEARCH_ROW_VERSION_ID, revision: position, version: SEARCH_ROW_VERSION };
}

/**
 * The writes that mark the recomputed rows as this version's, over whatever mark was there: the
 * revision guard would keep a mark of a later checkpoint, or of another version, which a rollback
 * to an older version may have left.
 */
export function recomputedRowsMark(position: number): DocumentWrite[] {
  return [
    { collection: CHECKPOINTS_COLLECTION.name, deleteId: SEARCH_ROW_VERSION_ID },
    { collection: CHECKPOINTS_COLLECTION.name, upsert: searchRowVersionRecord(position) },
  ];
}
