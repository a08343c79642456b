/**
 * In-process document store: collections live in memory, queries run through mingo with the
 * MongoDB query language, declared indexes narrow the candidates, and `flush()` snapshots the
 * collections to JSON-lines files so that a restart on the same `dataDir` loses nothing flushed.
 */
import { mkdir } from 'node:fs/promises';
import type { CollectionSpec, DocumentStore, StoredDocument } from '../document-store.port';
import { DocumentStoreClosedError } from '../errors';
import { type CollectionHost, EmbeddedDocumentCollection } from './embedded-collection';
import { readCollectionFile, writeCollectionFile } from './persistence';

export interface EmbeddedDocumentStoreOptions {
  /** Directory of the collection files; without it the store lives in memory only. */
  dataDir?: string;
  /** When set, changes are flushed at most this many milliseconds after they happen. */
  autoFlushMs?: number;
}

export class EmbeddedDocumentStore implements DocumentStore {
  private readonly collections = new Map<string, EmbeddedDocumentCollection>();
  private readonly dirty = new Set<string>();
  private readonly dataDir: string | undefined;
  private readonly autoFlushMs: number | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  // Flushes run one after the other so that two renames of one file never race.
  private flushQueue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly host: CollectionHost = {
    assertOpen: () => {
      if (this.closed) throw new DocumentStoreClosedError();
    },
    markDirty: (name) => this.markDirty(name),
    documentsOf: (name) => this.collections.get(name)?.storedDocuments() ?? [],
  };

  constructor(options: EmbeddedDocumentStoreOptions = {}) {
    const { dataDir, autoFlushMs } = options;
    if (autoFlushMs !== undefined && !(autoFlushMs > 0)) throw new RangeError('autoFlushMs must be a positive number');
    if (autoFlushMs !== undefined && dataDir === undefined) throw new Error('autoFlushMs needs a dataDir');
    this.dataDir = dataDir;
    this.autoFlushMs = autoFlushMs;
  }

  /**
   * The collection of that name, created on first use and loaded from `dataDir` if it was
   * flushed before. Asking again with more indexes declares the new ones.
   */
  collection<T extends StoredDocument>(spec: CollectionSpec): EmbeddedDocumentCollection<T> {
    this.host.assertOpen();
    let collection = this.collections.get(spec.name);
    if (collection) {
      collection.declareIndexes(spec.indexes);
    } else {
      collection = new EmbeddedDocumentCollection(spec, this.host);
      if (this.dataDir !== undefined) {
        const docs = readCollectionFile(this.dataDir, spec.name);
        if (docs) collection.load(docs);
      }
      this.collections.set(spec.name, collection);
    }
    // The store keeps collections untyped; the document type is the caller's declaration.
    return collection as unknown as EmbeddedDocumentCollection<T>;
  }

  flush(): Promise<void> {
    const run = this.flushQueue.then(() => this.writeDirtyCollections());
    // A failed flush must not block the following ones; the caller still sees its own failure.
    this.flushQueue = run.catch(() => undefined);
    return run;
  }

  async isReady(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flush();
    this.closed = true;
  }

  private markDirty(name: string): void {
    if (this.dataDir === undefined) return;
    this.dirty.add(name);
    if (this.autoFlushMs !== undefined && !this.flushTimer && !this.closed) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush().catch((error: unknown) => {
          // Nobody awaits a timed flush: report it, and the collections stay dirty for a retry.
          process.emitWarning(`Document store auto-flush failed: ${String(error)}`, 'DocumentStoreWarning');
        });
      }, this.autoFlushMs);
      // A pending flush must not keep the process alive; close() flushes what is left.
      this.flushTimer.unref();
    }
  }

  private async writeDirtyCollections(): Promise<void> {
    const dataDir = this.dataDir;
    if (dataDir === undefined || this.dirty.size === 0) return;
    await mkdir(dataDir, { recursive: true });
    for (const name of [...this.dirty]) {
      const collection = this.collections.get(name);
      this.dirty.delete(name);
      if (!collection) continue;
      // Stored documents are replaced on write, never changed in place, so this array is a
      // consistent snapshot even if writes happen while the file is being written.
      const snapshot = collection.storedDocuments();
      try {
        await writeCollectionFile(dataDir, name, snapshot);
      } catch (error) {
        this.dirty.add(name);
        throw error;
      }
    }
  }
}
