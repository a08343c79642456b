import type { DocumentStore, DocumentWrite } from '@immo/document-store';
import { SEARCH_ROW_VERSION } from '../search/search-row';
import { CHECKPOINTS_COLLECTION, SEARCH_ROWS_COLLECTION, type CheckpointRecord, type SearchRowRecord } from './read-models';

/**
 * Beside the checkpoints: the `SEARCH_ROW_VERSION` every stored search row was written with. It
 * is written only in the commit that ends a recomputation of the rows, or before the first rows
 * are stored, so it never calls current a set of rows still partly of another version.
 */
export const SEARCH_ROW_VERSION_ID = 'search-row-version';

/**
 * The version the stored search rows were written with; null when there are none. Rows stored
 * before this mark existed are of version 1.
 */
export async function storedSearchRowVersion(store: DocumentStore): Promise<number | null> {
  const mark = await store.collection<CheckpointRecord>(CHECKPOINTS_COLLECTION).findById(SEARCH_ROW_VERSION_ID);
  if (mark !== null) return mark.position;
  const [anyRow] = await store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION).find({}, { limit: 1, projection: { _id: 1 } });
  return anyRow === undefined ? null : 1;
}

/**
 * The writes that mark the stored rows as this version's, over whatever mark was there: after a
 * rollback to an older version recomputed the rows, a lower mark must replace the higher one (the
 * revision guard alone would keep it), so that the newer version recomputes them again.
 */
export function currentSearchRowVersionMark(): DocumentWrite[] {
  return [
    { collection: CHECKPOINTS_COLLECTION.name, deleteId: SEARCH_ROW_VERSION_ID },
    { collection: CHECKPOINTS_COLLECTION.name, upsert: currentSearchRowVersionRecord() },
  ];
}

/** The mark of this version, as stored (where there is none yet, it is written as is). */
export function currentSearchRowVersionRecord(): CheckpointRecord {
  return { _id: SEARCH_ROW_VERSION_ID, revision: SEARCH_ROW_VERSION, position: SEARCH_ROW_VERSION };
}
