import { Logger } from '@nestjs/common';
import type { DocumentStore, DocumentWrite } from '@immo/document-store';
import { eventLoopSlice } from '@immo/service-kit';
import type { DocumentTextCache } from '../queries/document-text-cache';
import { searchRowOf, type SearchRow } from '../search/search-row';
import type { PropertySearchIndex } from '../search/property-search-index';
import type { PropertyChange } from './property-documents.projection';
import { PROPERTIES_COLLECTION, SEARCH_ROWS_COLLECTION, type PropertyRecord, type SearchRowRecord } from './read-models';
import { readSearchIndexSnapshot, writeSearchIndexSnapshot } from './search-index-snapshot';
import type { UnitOfWork } from './unit-of-work';

/** Rows (or documents, when the rows are recomputed) read per batch at start. */
const LOAD_PAGE = 5_000;

/**
 * The property search index: the compact search row of every property document, stored beside the
 * documents (`listings_search_rows`, same commit) and held in memory by `PropertySearchIndex`.
 * The stored rows let a restart load the index without decoding every document; the in-memory
 * index changes only once the batch is committed, so a query never sees a change a crash could
 * take back. At the same moment the cached JSON text of the changed documents is dropped.
 * When the service stops, the whole index is also written to a snapshot file, which the next
 * start restores instead of the rows if nothing was committed in between.
 */
export class SearchIndexProjection {
  static readonly NAME = 'search-index';
  readonly name = SearchIndexProjection.NAME;
  private readonly logger = new Logger('SearchIndex');
  /**
   * The stored rows are of another version and this replica may not store them again (it follows
   * the writer of a shared store): the rows of changed properties are computed from their stored
   * documents until the writer has recomputed every row (`storedRowsCurrent`).
   */
  private rowsOfDocuments = false;

  constructor(
    private readonly store: DocumentStore,
    readonly index: PropertySearchIndex,
    private readonly texts: DocumentTextCache,
    /** Where the index is snapshotted when the service stops (see search-index-snapshot.ts); null for never. */
    private readonly snapshotFile: string | null = null,
    private readonly loadPage = LOAD_PAGE,
  ) {
    store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION);
  }

  apply(change: PropertyChange, position: number, uow: UnitOfWork): void {
    if (change.crawlOnly) {
      // The row reads nothing that a crawl-only change moves: it stays, stored and indexed. The
      // document served for the property did change (its crawl times).
      uow.afterCommit(() => this.texts.forget(change.propertyId));
      return;
    }
    const row = searchRowOf(change.after);
    uow.put(SEARCH_ROWS_COLLECTION.name, { _id: change.propertyId, revision: position, row } as SearchRowRecord);
    uow.afterCommit(() => {
      this.index.upsert(row);
      this.texts.forget(change.propertyId);
    });
  }

  /**
   * Another replica projected a change of these properties into the shared store: once this batch
   * commits, the index holds the rows it stored, and the documents' cached text is dropped.
   */
  async followStored(propertyIds: readonly string[], uow: UnitOfWork): Promise<void> {
    const stored = this.rowsOfDocuments ? await this.rowsComputedFromDocuments(propertyIds) : await this.storedRows(propertyIds);
    uow.afterCommit(() => {
      for (const row of stored) if (row !== null) this.index.upsert(row);
      for (const id of propertyIds) this.texts.forget(id);
    });
  }

  /** Whether changes are read from the documents, the stored rows being of another version (see `indexDocuments`). */
  get readsDocuments(): boolean {
    return this.rowsOfDocuments;
  }

  /** The writer has stored every row at this version: changes are read from the rows again. */
  storedRowsCurrent(): void {
    this.rowsOfDocuments = false;
  }

  /**
   * Fills the index from the stored property documents, a batch at a time, each row computed as
   * the projection computes it: at start, when the stored rows are of another version. `write`
   * (the writer's) commits each batch's rows in place of the stored ones; the writer marks them
   * current once all are (see search-row-version.ts). Without it (a follower of the writer),
   * nothing is stored, and the rows of later changes are computed from their documents too until
   * the writer has stored them (`storedRowsCurrent`).
   */
  async indexDocuments(write: ((writes: DocumentWrite[]) => Promise<void>) | null): Promise<number> {
    const documents = this.store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
    let indexed = 0;
    for await (const batch of documents.scan(this.loadPage)) {
      const rows: SearchRow[] = [];
      for (const record of batch) {
        rows.push(searchRowOf(record.document));
        // The writer may do this while serving (it just took the lead): requests get their turns.
        await eventLoopSlice.yieldIfDue();
      }
      if (write !== null) {
        // A stored row is replaced whatever its revision: the revision guard would keep one
        // written at the document's own revision, and the row must change all the same.
        const writes: DocumentWrite[] = [];
        batch.forEach((record, i) => {
          const replacement: SearchRowRecord = { _id: record._id, revision: record.revision, row: rows[i] as SearchRow };
          writes.push({ collection: SEARCH_ROWS_COLLECTION.name, deleteId: record._id }, { collection: SEARCH_ROWS_COLLECTION.name, upsert: replacement });
        });
        await write(writes);
      }
      for (const row of rows) this.index.upsert(row);
      indexed += batch.length;
    }
    this.rowsOfDocuments = write === null;
    this.index.compact(true);
    return indexed;
  }

  private async storedRows(propertyIds: readonly string[]): Promise<(SearchRow | null)[]> {
    const rows = this.store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION);
    return (await Promise.all(propertyIds.map((id) => rows.findById(id)))).map((record) => (record === null ? null : (record.row as SearchRow)));
  }

  private async rowsComputedFromDocuments(propertyIds: readonly string[]): Promise<(SearchRow | null)[]> {
    const documents = this.store.collection<PropertyRecord>(PROPERTIES_COLLECTION);
    return (await Promise.all(propertyIds.map((id) => documents.findById(id)))).map((record) => (record === null ? null : searchRowOf(record.document)));
  }

  /**
   * Fills the index at start, before following the log: from the snapshot taken when the service
   * last stopped if it was taken at `position` (the projection's stored checkpoint), otherwise
   * from the stored rows.
   */
  async load(position: number | null): Promise<{ properties: number; from: string }> {
    if (this.snapshotFile !== null) {
      const snapshot = readSearchIndexSnapshot(this.snapshotFile, position);
      if (snapshot.index !== null) {
        this.index.replaceWith(snapshot.index);
        return { properties: this.index.size, from: 'the snapshot taken at stop' };
      }
      if (snapshot.reason !== 'no snapshot') this.logger.warn(`search index snapshot not used (${snapshot.reason}): loading the stored rows`);
    }
    return { properties: await this.loadRows(), from: 'the stored rows' };
  }

  /** Snapshots the index as of `position`, the projection's stored checkpoint (when the service stops). */
  saveSnapshot(position: number | null): void {
    if (this.snapshotFile === null || position === null) return;
    const started = performance.now();
    try {
      const bytes = writeSearchIndexSnapshot(this.snapshotFile, this.index, position);
      this.logger.log(`search index snapshot of ${this.index.size} properties written (${(bytes / 1048576).toFixed(0)} MiB, ${(performance.now() - started).toFixed(0)} ms)`);
    } catch (error) {
      // The next start loads the rows instead: slower, as correct.
      this.logger.warn(`search index snapshot not written: ${String(error)}`);
    }
  }

  /**
   * From the stored rows, a page at a time: 200,000 decoded rows held at once would double the
   * heap the index itself needs.
   */
  private async loadRows(): Promise<number> {
    const rows = this.store.collection<SearchRowRecord>(SEARCH_ROWS_COLLECTION);
    let loaded = 0;
    for await (const batch of rows.scan(this.loadPage)) {
      for (const record of batch) this.index.upsert(record.row as SearchRow);
      loaded += batch.length;
    }
    // Drops the headroom the structures grew with while loading.
    this.index.compact(true);
    return loaded;
  }

  clear(): void {
    this.index.clear();
    this.texts.clear();
  }
}
