import { LRUCache } from 'lru-cache';
import type { CommitCondition, DocumentStore, DocumentWrite, StoredDocument } from '@immo/document-store';

/**
 * Recently read or written documents of the projections, across batches: the same adverts and
 * properties come back within minutes (recrawls, several publishers), and reading them from the
 * store means decoding them. The projections are the only writers of these collections, so the
 * cache stays exact; documents in it are never changed in place (evolve and the document builder
 * return new objects).
 */
export class RecordCache {
  private readonly caches = new Map<string, LRUCache<string, StoredDocument>>();

  /**
   * `collections` names what the projections read back (adverts, properties): caching write-only
   * records (outbox, search rows, facts) would only hold whole payloads on the heap until evicted.
   */
  constructor(
    private readonly entriesPerCollection = 5_000,
    private readonly collections: ReadonlySet<string> | null = null,
  ) {}

  get<T extends StoredDocument>(collection: string, id: string): T | undefined {
    return this.caches.get(collection)?.get(id) as T | undefined;
  }

  set(collection: string, doc: StoredDocument): void {
    if (this.entriesPerCollection <= 0 || (this.collections !== null && !this.collections.has(collection))) return;
    let cache = this.caches.get(collection);
    if (!cache) this.caches.set(collection, (cache = new LRUCache<string, StoredDocument>({ max: this.entriesPerCollection })));
    cache.set(doc._id, doc);
  }

  clear(): void {
    this.caches.clear();
  }
}

/**
 * The writes of one batch of events, committed together with the projections' checkpoints.
 * Reads during the batch see the batch's own writes first, then those of the batch before it
 * while that one is still committing (a store may not show a transaction before it commits);
 * several writes to one document in a batch collapse into the last one.
 */
export class UnitOfWork {
  private readonly pending = new Map<string, Map<string, StoredDocument>>();
  private readonly checkpoints = new Map<string, number>();
  /** Adverts written in this batch, by property, since the store's index does not see them yet. */
  private readonly members = new Map<string, Set<string>>();
  private readonly committed: (() => void)[] = [];
  events = 0;

  constructor(
    private readonly store: DocumentStore,
    private readonly cache: RecordCache = new RecordCache(0),
    /** The batch before this one, until it is committed. */
    private committing: UnitOfWork | null = null,
  ) {}

  get size(): number {
    return this.events;
  }

  pendingDocument<T extends StoredDocument>(collection: string, id: string): T | undefined {
    return (this.pending.get(collection)?.get(id) ?? this.committing?.pending.get(collection)?.get(id)) as T | undefined;
  }

  async read<T extends StoredDocument>(collection: string, id: string, load: (id: string) => Promise<T | null>): Promise<T | null> {
    const known = this.pendingDocument<T>(collection, id) ?? this.cache.get<T>(collection, id);
    if (known) return known;
    const loaded = await load(id);
    if (loaded) this.cache.set(collection, loaded);
    return loaded;
  }

  put(collection: string, doc: StoredDocument): void {
    this.cache.set(collection, doc);
    let docs = this.pending.get(collection);
    if (!docs) this.pending.set(collection, (docs = new Map()));
    docs.set(doc._id, doc);
  }

  addMember(propertyId: string, advertId: string): void {
    let ids = this.members.get(propertyId);
    if (!ids) this.members.set(propertyId, (ids = new Set()));
    ids.add(advertId);
  }

  membersOf(propertyId: string): ReadonlySet<string> {
    const own = this.members.get(propertyId);
    const earlier = this.committing?.members.get(propertyId);
    if (earlier === undefined) return own ?? EMPTY;
    return own === undefined ? earlier : new Set([...earlier, ...own]);
  }

  /** The batch before this one is committed: the store shows its writes from now on (and holds them). */
  previousCommitted(): void {
    this.committing = null;
  }

  /** Runs once the batch is committed (in-memory views that must not show uncommitted changes). */
  afterCommit(effect: () => void): void {
    this.committed.push(effect);
  }

  checkpoint(projection: string, position: number): void {
    this.checkpoints.set(projection, position);
  }

  /** The documents this batch writes to a collection. */
  writtenTo<T extends StoredDocument>(collection: string): Iterable<T> {
    return (this.pending.get(collection)?.values() ?? []) as Iterable<T>;
  }

  /** Nothing to commit nor to settle (a follower's batch writes nothing, but settles its events). */
  isEmpty(): boolean {
    return this.pending.size === 0 && this.checkpoints.size === 0 && this.committed.length === 0 && this.events === 0;
  }

  /** The position this batch moves a projection's checkpoint to, if it does. */
  checkpointOf(projection: string): number | undefined {
    return this.checkpoints.get(projection);
  }

  /**
   * One transaction: the documents, then the checkpoints that cover them; nothing of it when a
   * condition does not hold (`CommitConflictError`).
   */
  async commit(checkpointCollection: string, expect: readonly CommitCondition[] = []): Promise<void> {
    const writes: DocumentWrite[] = [];
    for (const [collection, docs] of this.pending) for (const doc of docs.values()) writes.push({ collection, upsert: doc });
    for (const [name, position] of this.checkpoints) {
      writes.push({ collection: checkpointCollection, upsert: { _id: name, revision: position, position } as StoredDocument });
    }
    if (writes.length > 0) await this.store.commit(writes, { expect });
    for (const effect of this.committed) effect();
  }
}

const EMPTY: ReadonlySet<string> = new Set();
