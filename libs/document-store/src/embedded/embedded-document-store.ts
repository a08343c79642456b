/**
 * In-process document store. Collections keep skeletons (`_id`, `revision`, declared index
 * paths) on the heap and their full documents in LMDB under `dataDir` (or on the heap when there
 * is no `dataDir`); queries run through mingo with the MongoDB query language. Every write is a
 * transaction: `commit()` spans collections, so a crash at any instant leaves either all of a
 * commit's writes or none.
 */
import type { CollectionSpec, CommitOptions, CommitOutcome, DocumentStore, DocumentWrite, StoredDocument } from '../document-store.port';
import { assertStoredDocument } from '../document-validation';
import { CommitConflictError, DocumentStoreClosedError, DocumentStoreFailedError, DuplicateKeyError } from '../errors';
import { type BodyStore, documentCopier, LmdbBodyStore, MemoryBodyStore } from './body-store';
import { type AppliedWrite, type CollectionHost, EmbeddedDocumentCollection, type Undo } from './embedded-collection';
import type { YieldToEventLoop } from '@immo/runtime';
import { LmdbPersistence, type PersistOp } from './lmdb-persistence';
import { type Skeleton, skeletonOf } from './skeleton';
import { newSkeletonMap } from './skeleton-table';

export interface EmbeddedDocumentStoreOptions {
  /** Directory of the LMDB file; without it the store lives in memory only. */
  dataDir?: string;
  /** Lets the event loop turn while a large commit is encoded (see `YieldToEventLoop`). */
  yieldToEventLoop?: YieldToEventLoop;
  /**
   * Told once when a commit (or a skeleton save) fails to reach the disk: from then on the store
   * refuses all work, and only a new process, replaying from its stored checkpoints, gets going
   * again. Services exit there, for their supervisor to restart them.
   */
  onFailure?: (failure: DocumentStoreFailedError) => void;
}

export class EmbeddedDocumentStore implements DocumentStore {
  private readonly collections = new Map<string, EmbeddedDocumentCollection>();
  private readonly persistence: LmdbPersistence | null;
  private closed = false;
  private failure: DocumentStoreFailedError | null = null;
  /** Commits not yet durable, so that close() waits for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly host: CollectionHost = {
    assertOpen: () => this.assertUsable(),
    commit: (writes, options) => this.apply(writes, options?.skipDuplicates ?? false, false),
    documentsOf: (name) => this.collections.get(name)?.allDocuments() ?? [],
  };

  private readonly onFailure: (failure: DocumentStoreFailedError) => void;

  constructor(options: EmbeddedDocumentStoreOptions = {}) {
    this.persistence = options.dataDir === undefined ? null : LmdbPersistence.open(options.dataDir, options.yieldToEventLoop);
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  /**
   * The collection of that name, created on first use and loaded from `dataDir` if it was stored
   * before. Asking again with more indexes declares the new ones.
   */
  collection<T extends StoredDocument>(spec: CollectionSpec): EmbeddedDocumentCollection<T> {
    this.assertUsable();
    let collection = this.collections.get(spec.name);
    if (collection) {
      collection.declareIndexes(spec.indexes);
    } else {
      const copy = documentCopier(spec.plainJson === true);
      const bodies: BodyStore = this.persistence ? new LmdbBodyStore(this.persistence, spec.name, copy) : new MemoryBodyStore(copy);
      collection = new EmbeddedDocumentCollection(spec, this.host, bodies, (paths) => this.skeletonsOf(spec.name, paths, collection));
      this.collections.set(spec.name, collection);
    }
    // The store keeps collections untyped; the document type is the caller's declaration.
    return collection as unknown as EmbeddedDocumentCollection<T>;
  }

  async commit(writes: readonly DocumentWrite[], options: CommitOptions = {}): Promise<CommitOutcome[]> {
    this.assertUsable();
    for (const write of writes) if ('upsert' in write) assertStoredDocument(write.upsert, write.collection);
    // Checked and applied in one turn of the event loop: no other commit comes between.
    for (const condition of options.expect ?? []) {
      const collection = this.collections.get(condition.collection);
      if (!collection) throw new Error(`Collection "${condition.collection}" was not opened with collection() before commit`);
      const found = collection.revisionOf(condition.id);
      if (found !== condition.revision) throw new CommitConflictError(condition.collection, condition.id, condition.revision, found);
    }
    return (await this.apply(writes, false, true)).outcomes;
  }

  async flush(): Promise<void> {
    this.assertUsable();
    await Promise.all(this.inFlight);
    await this.persistence?.flush();
  }

  async isReady(): Promise<boolean> {
    return !this.closed && this.failure === null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.inFlight);
    await this.persistence?.close();
  }

  private assertUsable(): void {
    if (this.closed) throw new DocumentStoreClosedError();
    if (this.failure) throw this.failure;
  }

  /**
   * Applies the writes in memory in order (visible to reads at once), then persists them in one
   * LMDB transaction. A refused write (unique index) undoes the whole commit, unless duplicates
   * are skipped one by one as a bulk upsert does.
   */
  private async apply(writes: readonly DocumentWrite[], skipDuplicates: boolean, owned: boolean): Promise<{ outcomes: CommitOutcome[]; duplicate: DuplicateKeyError | null }> {
    this.assertUsable();
    const undo: Undo[] = [];
    const applied: { collection: EmbeddedDocumentCollection; write: AppliedWrite }[] = [];
    const outcomes: CommitOutcome[] = [];
    let duplicate: DuplicateKeyError | null = null;
    try {
      for (const write of writes) {
        const collection = this.collections.get(write.collection);
        if (!collection) throw new Error(`Collection "${write.collection}" was not opened with collection() before commit`);
        const own: Undo[] = [];
        try {
          const result = 'upsert' in write ? collection.applyUpsert(write.upsert, own, owned) : collection.applyDelete(write.deleteId, own);
          applied.push({ collection, write: result });
          outcomes.push(result.outcome);
          undo.push(...own);
        } catch (error) {
          if (!(skipDuplicates && error instanceof DuplicateKeyError)) throw error;
          for (const step of own.reverse()) step();
          duplicate ??= error;
          outcomes.push('stale');
        }
      }
    } catch (error) {
      for (const step of undo.reverse()) step();
      throw error;
    }
    const ops = applied.flatMap(({ write }) => (write.op ? [write.op] : []));
    if (this.persistence && ops.length > 0) await this.persist(ops);
    for (const { collection, write } of applied) if (write.op) collection.settled(write.op);
    return { outcomes, duplicate };
  }

  private async persist(ops: PersistOp[]): Promise<void> {
    const persistence = this.persistence as LmdbPersistence;
    const done = persistence.persist(ops, (name) => this.collections.get(name)?.skeletonPaths ?? []);
    const tracked = done.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(tracked);
    try {
      await done;
    } catch (error) {
      // Memory is now ahead of the disk: refuse everything until the process reopens the store.
      throw this.fail(error);
    } finally {
      this.inFlight.delete(tracked);
    }
  }

  /** Enters the failed state (once) and says so; the failure to throw. */
  private fail(cause: unknown): DocumentStoreFailedError {
    if (this.failure === null) {
      this.failure = new DocumentStoreFailedError(cause);
      this.onFailure(this.failure);
    }
    return this.failure;
  }

  /** Stored skeletons for these paths; rebuilt from the documents (and stored) when they differ. */
  private skeletonsOf(name: string, paths: readonly string[], existing: EmbeddedDocumentCollection | undefined): Map<string, Skeleton> {
    if (!this.persistence) {
      // In memory the documents are at hand: rebuild from them (only when indexes are added).
      const rebuilt = newSkeletonMap();
      for (const doc of existing?.allDocuments() ?? []) rebuilt.set(doc._id, skeletonOf(doc, paths));
      return rebuilt;
    }
    const stored = this.persistence.loadSkeletons(name, paths);
    if (stored) return stored;
    const rebuilt = newSkeletonMap();
    for (const doc of this.persistence.documents(name)) rebuilt.set(doc._id, skeletonOf(doc, paths));
    const saving = this.persistence.storeSkeletons(name, paths, rebuilt).catch((error: unknown) => {
      this.fail(error);
    });
    this.inFlight.add(saving);
    void saving.finally(() => this.inFlight.delete(saving));
    return rebuilt;
  }
}
