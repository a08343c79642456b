/**
 * Where an embedded collection's full documents live. Both kinds hand out copies, so callers
 * never share objects with the store, and make a staged write visible to reads at once (read your
 * writes), before it is durable.
 */
import type { StoredDocument } from '../document-store.port';
import { cloneDocument } from './clone';
import type { LmdbPersistence } from './lmdb-persistence';

/**
 * How a body store copies the documents it hands out: as JSON carries them for a collection of
 * plain JSON data (what the disk gives back, so a read looks the same before and after its commit
 * and with or without a data directory), a deep copy otherwise.
 */
export function documentCopier(plainJson: boolean): (doc: StoredDocument) => StoredDocument {
  return plainJson ? (doc) => JSON.parse(JSON.stringify(doc)) as StoredDocument : cloneDocument;
}

/** What a store held for an id before a write, to put it back if the commit is refused. */
export type StagedState = { kind: 'stored' } | { kind: 'staged'; doc: StoredDocument | null };

export interface BodyStore {
  read(id: string): StoredDocument | undefined;
  /** Makes the next reads of these ids cheap where reading may wait for the disk. */
  prefetch(ids: readonly string[]): Promise<void>;
  /** The current state of an id, cheaply (no decoding), for `restore`. */
  capture(id: string): StagedState;
  restore(id: string, state: StagedState): void;
  /** Makes a write visible to reads; `doc` is owned by the store from now on (never changed). */
  stage(id: string, doc: StoredDocument | null): void;
  /** The staged write is durable: the overlay may forget it unless a later write replaced it. */
  settled(id: string, doc: StoredDocument | null): void;
}

/** Documents on the heap, for stores without a data directory (tests, tools). */
export class MemoryBodyStore implements BodyStore {
  private readonly docs = new Map<string, StoredDocument>();

  constructor(private readonly copy: (doc: StoredDocument) => StoredDocument = cloneDocument) {}

  read(id: string): StoredDocument | undefined {
    const doc = this.docs.get(id);
    return doc === undefined ? undefined : this.copy(doc);
  }

  async prefetch(): Promise<void> {
    // Nothing to fetch: the documents are on the heap.
  }

  stage(id: string, doc: StoredDocument | null): void {
    if (doc === null) this.docs.delete(id);
    else this.docs.set(id, doc);
  }

  capture(id: string): StagedState {
    return { kind: 'staged', doc: this.docs.get(id) ?? null };
  }

  restore(id: string, state: StagedState): void {
    this.stage(id, state.kind === 'staged' ? state.doc : null);
  }

  settled(): void {
    // Nothing to forget: memory is where the documents live.
  }
}

/** Documents in LMDB, with an overlay of the writes whose transaction has not committed yet. */
export class LmdbBodyStore implements BodyStore {
  private readonly overlay = new Map<string, StoredDocument | null>();

  constructor(
    private readonly persistence: LmdbPersistence,
    private readonly collection: string,
    private readonly copy: (doc: StoredDocument) => StoredDocument = cloneDocument,
  ) {}

  read(id: string): StoredDocument | undefined {
    if (this.overlay.has(id)) {
      const staged = this.overlay.get(id);
      return staged ? this.copy(staged) : undefined;
    }
    return this.persistence.read(this.collection, id);
  }

  prefetch(ids: readonly string[]): Promise<void> {
    // Staged writes are read from the overlay, not the map.
    return this.persistence.prefetch(this.collection, ids.filter((id) => !this.overlay.has(id)));
  }

  stage(id: string, doc: StoredDocument | null): void {
    this.overlay.set(id, doc);
  }

  capture(id: string): StagedState {
    return this.overlay.has(id) ? { kind: 'staged', doc: this.overlay.get(id) ?? null } : { kind: 'stored' };
  }

  restore(id: string, state: StagedState): void {
    // Nothing was written to disk yet: putting the overlay back as it was restores the reads.
    if (state.kind === 'stored') this.overlay.delete(id);
    else this.overlay.set(id, state.doc);
  }

  settled(id: string, doc: StoredDocument | null): void {
    if (this.overlay.get(id) === doc) this.overlay.delete(id);
  }
}
