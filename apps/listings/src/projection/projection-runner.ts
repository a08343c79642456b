import { Logger } from '@nestjs/common';
import { CommitConflictError, type DocumentCollection, type DocumentStore, type DocumentWrite } from '@immo/document-store';
import { eventLoopSlice, outboxId, withRequestId } from '@immo/service-kit';
import type { AllSubscription, EventStore, RecordedEvent } from '@immo/event-store';
import type { AdvertDirectory } from './advert-directory';
import type { AdvertStatesProjection } from './advert-states.projection';
import type { IntegrationOutboxProjection } from './integration-outbox.projection';
import type { PropertyDocumentsProjection } from './property-documents.projection';
import type { SearchIndexProjection } from './search-index.projection';
import { SEARCH_ROW_VERSION } from '../search/search-row';
import { recomputedRowsMark, SEARCH_ROW_VERSION_ID, searchRowVersionRecord, storedSearchRowVersion, type SearchRowVersionRecord } from './search-row-version';
import {
  ADVERT_FACTS_COLLECTION,
  ADVERTS_COLLECTION,
  CHECKPOINTS_COLLECTION,
  OUTBOX_COLLECTION,
  PROPERTIES_COLLECTION,
  SEARCH_ROWS_COLLECTION,
  type AdvertFactsRecord,
  type AdvertRecord,
  type CheckpointRecord,
  type OutboxRecord,
} from './read-models';
import { RecordCache, UnitOfWork } from './unit-of-work';

/**
 * A batch commits when it holds this many events... The documents are encoded on the event loop
 * before the store's transaction (~50 µs per property document, in slices that let requests in),
 * so a batch stays small enough for that to take a few tens of milliseconds. While a batch
 * commits, the next one is applied; it commits once the one before it has.
 */
const BATCH_EVENTS = 100;
/** ...or this long after its first event, whichever comes first (and then once the commit before it is done). */
const BATCH_MS = 50;
const RESUBSCRIBE_MS = 1000;

export interface ProjectionRunnerDependencies {
  eventStore: EventStore;
  store: DocumentStore;
  directory: AdvertDirectory;
  advertStates: AdvertStatesProjection;
  propertyDocuments: PropertyDocumentsProjection;
  outbox: IntegrationOutboxProjection;
  searchIndex: SearchIndexProjection;
  /** Called after each commit that added integration events to the outbox, with the records it committed. */
  onOutboxWritten: (committed: Iterable<OutboxRecord>) => void;
  /**
   * Whether this replica writes the read models now. Always, with a store of its own; with a store
   * the replicas share, only the ingestion leader does, and the others follow what it stores.
   */
  isWriter?: () => boolean;
  /**
   * What this replica holds in memory no longer matches the shared store: another replica
   * committed the read models while this one thought it was their writer (it lost the lead while
   * stalled, and its batch was refused whole), or the writer rebuilt them (their checkpoint went
   * back). The service restarts, to load what is stored.
   */
  onRestartNeeded?: (reason: string) => void;
}

/** How often a follower looks whether the writer's stored checkpoint covers the next event. */
const FOLLOW_POLL_MS = 25;
/** Beside the checkpoints: how many times the read models were dropped, so that followers notice a rebuild. */
const GENERATION_ID = 'read-models-generation';

/**
 * Follows the event log in order and runs the three listings projections over it: advert states,
 * then property documents, then the integration outbox. Each keeps its own checkpoint and skips
 * events at or before it; the writes of a batch of events and the checkpoints that cover them are
 * one store transaction, so a crash at any instant leaves a state that replay from the stored
 * checkpoints makes exact.
 *
 * Replicas sharing one store: one writes (the ingestion leader), and its commits hold only while
 * the stored checkpoint is the one it last committed or read, so a writer that lost its turn
 * cannot commit over its successor's work. The others follow: each event is applied once the
 * stored checkpoint covers it, when the store already holds its effects; the advert-states
 * projection then answers with the stored advert, and the directory and the search index follow
 * the stored records (see `StoredAhead`). A follower writes nothing.
 */
export class ProjectionRunner {
  private readonly logger = new Logger('Projections');
  private readonly checkpointRecords: DocumentCollection<CheckpointRecord>;
  private readonly checkpoints = new Map<string, number | null>();
  private subscription: AllSubscription | null = null;
  private loop: Promise<void> | null = null;
  private uow: UnitOfWork;
  /**
   * Adverts' records (property documents are built, never read back): 2,000, a few seconds of
   * ingestion. Each cached record is a tree of objects the collector walks on every full
   * collection (5,000 adverts and 5,000 documents were half a million objects, a sixth of
   * listings' heap at 100,000 properties), and the read-ahead already fetches a batch's records
   * from the store together.
   */
  private readonly cache = new RecordCache(2_000, new Set([ADVERTS_COLLECTION.name]));
  private outboxWritten = false;
  private commitTimer: NodeJS.Timeout | null = null;
  /** Work on the unit of work runs one piece at a time (events, timed commits). */
  private chain: Promise<void> = Promise.resolve();
  /** The commit of the last batch handed to the store (settles, never rejects). */
  private lastCommit: Promise<void> = Promise.resolve();
  private applied: number | null = null;
  private committed: number | null = null;
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private stopped = true;
  private failure: unknown = null;
  private indexSource: string | null = null;
  /** The advert-states checkpoint the store holds, as far as this replica knows: what its next commit expects. */
  private storedCheckpoint: number | null = null;
  /** The read models' generation this replica loaded (see `GENERATION_ID`). */
  private generation = 0;
  /** Whether this replica, as the writer, made sure the stored search rows are of this version (see `makeStoredRowsCurrent`). */
  private rowsChecked = false;
  private readonly isWriter: () => boolean;

  /** The projections in the order they run; read for every event, so built once. */
  private readonly names: readonly string[];

  constructor(private readonly deps: ProjectionRunnerDependencies) {
    this.names = [deps.advertStates.name, deps.propertyDocuments.name, deps.outbox.name, deps.searchIndex.name];
    this.checkpointRecords = deps.store.collection<CheckpointRecord>(CHECKPOINTS_COLLECTION);
    this.uow = new UnitOfWork(deps.store, this.cache);
    this.isWriter = deps.isWriter ?? (() => true);
  }


  /** Where the search index came from at the last start: the stored rows, or the snapshot taken at stop. */
  get searchIndexSource(): string | null {
    return this.indexSource;
  }

  /** Global position of the last committed event (null before the first). */
  get checkpoint(): number | null {
    return this.committed;
  }

  /** True once stopping: retries (geo lookups) give up instead of waiting. */
  get stopping(): boolean {
    return this.stopped;
  }

  /** Set when a commit failed: the store refuses work until the process restarts. */
  get failed(): unknown {
    return this.failure;
  }

  /** Loads checkpoints and the advert directory, then follows the log from the oldest checkpoint. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.loadCheckpoints();
    const head = await this.deps.eventStore.headPosition();
    const newest = Math.max(-1, ...[...this.checkpoints.values()].map((position) => position ?? -1));
    if (newest >= 0 && (head === null || newest > head)) {
      // The log lost events the read models had applied: a machine crash before the broker's files
      // caught up with what it had acknowledged. Appends now reuse those positions, which the
      // checkpoints would skip for good: the read models are rebuilt from what the log holds.
      this.logger.warn(`read models are ahead of the event log (checkpoint ${newest}, log head ${head ?? 'none'}): the log lost events they had applied; dropping them and replaying the log`);
      await this.dropReadModels(head);
      await this.loadCheckpoints();
    }
    const positions = [...this.checkpoints.values()];
    const from = positions.some((p) => p === null) ? null : Math.min(...(positions as number[]));
    this.storedCheckpoint = this.checkpoints.get(this.deps.advertStates.name) ?? null;
    this.generation = (await this.checkpointRecords.findById(GENERATION_ID))?.position ?? 0;
    this.applied = from;
    this.committed = from;
    await this.deps.directory.load(this.deps.store.collection<AdvertFactsRecord>(ADVERT_FACTS_COLLECTION));
    const indexed = await this.loadSearchIndex();
    this.indexSource = indexed.from;
    this.logger.log(`starting after position ${from ?? 'none'} with ${this.deps.directory.size} adverts and ${indexed.properties} properties indexed (from ${indexed.from})`);
    this.follow(from);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.unsubscribe();
    await this.loop?.catch(() => undefined);
    this.loop = null;
    await this.serial(() => this.commitBatch()).catch(() => undefined);
    await this.lastCommit;
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
  }

  /**
   * Once stopped, snapshots the search index for the next start, at its stored checkpoint (the
   * index changes only after a commit, so it is exactly what the stored rows say there). Not after
   * a failed commit: the store refuses work until restarted.
   */
  async saveSnapshot(): Promise<void> {
    if (!this.stopped || this.failure) return;
    const name = this.deps.searchIndex.name;
    this.deps.searchIndex.saveSnapshot((await this.checkpointRecords.findById(name))?.position ?? null);
  }

  /**
   * Drops the read models and replays the whole log into them. The outbox keeps its checkpoint:
   * a rebuild does not announce past changes again.
   * `requestId`: the rebuild request's, for the line that says the read models were dropped.
   */
  async rebuild(requestId: string | null = null): Promise<void> {
    await this.stop();
    await this.dropReadModels('keep');
    this.logger.log(withRequestId('read models dropped; replaying the event log', requestId));
    await this.start();
  }

  /**
   * Fills the search index at start, before the service takes requests. Rows stored by another
   * version of the service are computed again from the property documents: by the writer, which
   * stores them (`makeStoredRowsCurrent`); by a follower of a shared store, which may not, in
   * memory only, until the writer has stored them.
   */
  private async loadSearchIndex(): Promise<{ properties: number; from: string }> {
    const { searchIndex } = this.deps;
    this.rowsChecked = false;
    if (this.isWriter()) {
      const upgraded = await this.makeStoredRowsCurrent();
      if (upgraded !== null) return { properties: upgraded, from: 'the property documents, its search rows upgraded' };
    } else {
      const { version } = await storedSearchRowVersion(this.deps.store);
      if (version !== null && version !== SEARCH_ROW_VERSION) {
        const started = performance.now();
        const properties = await searchIndex.indexDocuments(null);
        this.logger.log(`the stored search rows are of version ${version}, which the writer upgrades: ${properties} rows computed from the property documents in ${millisecondsSince(started)} ms`);
        return { properties, from: 'the property documents, the stored search rows being of another version' };
      }
    }
    return searchIndex.load(this.checkpoints.get(searchIndex.name) ?? null);
  }

  /**
   * Before the writer stores a search row: makes sure the stored rows are all of this version (the
   * batches it commits then carry the mark, see `commitBatch`). Rows of another version are
   * computed again from the documents and stored, the index with them, and marked current in the
   * commit after the last: a crash midway leaves the old mark, and the next start does it all
   * again. How many were, or null when nothing needed it.
   */
  private async makeStoredRowsCurrent(): Promise<number | null> {
    const { searchIndex, store } = this.deps;
    const { version, checkpoint } = await storedSearchRowVersion(store);
    if (version === null || version === SEARCH_ROW_VERSION) {
      searchIndex.storedRowsCurrent();
      this.rowsChecked = true;
      return null;
    }
    const started = performance.now();
    this.logger.log(`the stored search rows are of version ${version}: computing them again from the property documents, as version ${SEARCH_ROW_VERSION}`);
    const properties = await searchIndex.indexDocuments((writes) => this.commitOutsideBatches(writes));
    await this.commitOutsideBatches(recomputedRowsMark(checkpoint ?? 0));
    this.logger.log(`search rows of ${properties} properties upgraded from version ${version} to ${SEARCH_ROW_VERSION} in ${millisecondsSince(started)} ms`);
    this.rowsChecked = true;
    return properties;
  }

  /**
   * This replica took the writer's turn (the ingestion lease): the stored search rows are made this
   * version's now, not at the first event it applies, which may come much later.
   */
  tookWritersTurn(): void {
    void this.serial(() => this.checkRowsAsNewWriter()).catch(() => undefined);
  }

  /**
   * Once a replica that followed is the writer: what it followed is committed first, then the
   * rows it will write to are made this version's (`makeStoredRowsCurrent`). Once per turn.
   */
  private async checkRowsAsNewWriter(): Promise<void> {
    if (this.rowsChecked || this.stopped || !this.isWriter()) return;
    await this.commitBatch();
    await this.lastCommit;
    await this.makeStoredRowsCurrent();
  }

  /**
   * The writer's commit of something other than a batch of events (the search rows' upgrade): as a
   * batch's, it holds only over the checkpoint this replica knows, so that it fails, and this
   * replica restarts, if another replica wrote meanwhile.
   */
  private async commitOutsideBatches(writes: readonly DocumentWrite[]): Promise<void> {
    const expect = [{ collection: CHECKPOINTS_COLLECTION.name, id: this.deps.advertStates.name, revision: this.storedCheckpoint }];
    try {
      await this.deps.store.commit(writes, { expect });
    } catch (error) {
      await this.commitFailed(error, this.applied);
      throw error;
    }
  }

  private async loadCheckpoints(): Promise<void> {
    for (const name of this.names) this.checkpoints.set(name, (await this.checkpointRecords.findById(name))?.position ?? null);
  }

  /**
   * Deletes the read models' documents and checkpoints in one transaction (a crash never leaves
   * checkpoints over dropped documents), and empties what is held in memory. The outbox's
   * checkpoint is kept, or moved back to `outboxTo` (the log's head) with the records past it
   * dropped: they announce events the log no longer holds, and the appends that reuse their
   * positions are announced in their place.
   */
  private async dropReadModels(outboxTo: number | null | 'keep'): Promise<void> {
    const { store } = this.deps;
    const writes: DocumentWrite[] = [];
    for (const spec of [ADVERTS_COLLECTION, ADVERT_FACTS_COLLECTION, PROPERTIES_COLLECTION, SEARCH_ROWS_COLLECTION]) {
      for (const { _id } of await store.collection(spec).find({}, { projection: { _id: 1 } })) writes.push({ collection: spec.name, deleteId: _id });
    }
    const dropped = [this.deps.advertStates.name, this.deps.propertyDocuments.name, this.deps.searchIndex.name];
    if (outboxTo !== 'keep') {
      dropped.push(this.deps.outbox.name);
      const past = outboxTo === null ? {} : { _id: { $gt: outboxId(outboxTo, 9999) } };
      for (const { _id } of await store.collection(OUTBOX_COLLECTION).find(past, { projection: { _id: 1 } })) writes.push({ collection: OUTBOX_COLLECTION.name, deleteId: _id });
    }
    for (const name of [...dropped, SEARCH_ROW_VERSION_ID]) writes.push({ collection: CHECKPOINTS_COLLECTION.name, deleteId: name });
    // Followers sharing the store notice the rebuild by this, and reload.
    const generation = ((await this.checkpointRecords.findById(GENERATION_ID))?.position ?? 0) + 1;
    writes.push({ collection: CHECKPOINTS_COLLECTION.name, upsert: { _id: GENERATION_ID, revision: generation, position: generation } as CheckpointRecord });
    if (outboxTo !== 'keep' && outboxTo !== null) {
      writes.push({ collection: CHECKPOINTS_COLLECTION.name, upsert: { _id: this.deps.outbox.name, revision: outboxTo, position: outboxTo } as CheckpointRecord });
    }
    await store.commit(writes);
    this.deps.directory.clear();
    this.deps.advertStates.clear();
    this.deps.searchIndex.clear();
    this.cache.clear();
  }

  /**
   * An advert's record as the projections last applied it, for ingestion to decide a snapshot on:
   * from the batch being built or committed, the cache, or else the store. An applied record may
   * not be committed yet; it folds events that are in the log, so it is a better guess than the
   * store's.
   */
  async advertRecord(advertId: string): Promise<AdvertRecord | null> {
    const name = ADVERTS_COLLECTION.name;
    const known = this.uow.pendingDocument<AdvertRecord>(name, advertId) ?? this.cache.get<AdvertRecord>(name, advertId);
    return known ?? this.deps.advertStates.storedRecord(advertId);
  }

  /** Resolves once every event up to `position` is committed. */
  waitFor(position: number): Promise<void> {
    if (this.committed !== null && this.committed >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  private follow(from: number | null): void {
    // Every event of the log is read (other streams only move the checkpoints), so the committed
    // position reaches the head of the log and `waitFor(position)` works for any append.
    const subscription = this.deps.eventStore.subscribeToAll(from !== null ? { fromPosition: from } : {});
    this.subscription = subscription;
    this.loop = (async () => {
      try {
        for await (const event of subscription) {
          await this.serial(() => this.apply(event));
          if (this.uow.size >= BATCH_EVENTS) await this.serial(() => this.commitBatch());
          else this.scheduleCommit();
          // Buffered events and cached records resolve at once: give requests a turn now and then.
          await eventLoopSlice.yieldIfDue();
          if (this.stopped) break;
        }
      } catch (error) {
        if (this.stopped || this.failure) return;
        this.logger.error(`subscription failed after position ${this.applied ?? 'none'}: ${String(error)}; resuming`);
        await this.serial(() => this.commitBatch()).catch(() => undefined);
        await new Promise((r) => setTimeout(r, RESUBSCRIBE_MS));
        if (!this.stopped && !this.failure) this.follow(this.applied);
      }
    })();
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private runs(name: string, position: number): boolean {
    const checkpoint = this.checkpoints.get(name) ?? null;
    return checkpoint === null || position > checkpoint;
  }

  /**
   * A follower waits until the writer's stored checkpoint covers this event, then reads what the
   * writer stored (nothing cached from before). Resolves false once this replica is the writer.
   */
  private async followWriterTo(position: number): Promise<boolean> {
    for (;;) {
      if (this.isWriter() || this.stopped) return false;
      if (this.storedCheckpoint !== null && this.storedCheckpoint >= position) break;
      const watched = [this.deps.advertStates.name, GENERATION_ID];
      if (this.deps.searchIndex.readsDocuments) watched.push(SEARCH_ROW_VERSION_ID);
      const records = await this.checkpointRecords.find({ _id: { $in: watched } });
      const stored = records.find((record) => record._id === this.deps.advertStates.name)?.position ?? null;
      const generation = records.find((record) => record._id === GENERATION_ID)?.position ?? 0;
      // The writer stored every search row at this version: they can be read again.
      const mark = records.find((record) => record._id === SEARCH_ROW_VERSION_ID) as SearchRowVersionRecord | undefined;
      if (mark?.version === SEARCH_ROW_VERSION) this.deps.searchIndex.storedRowsCurrent();
      if (generation !== this.generation) {
        this.stopped = true;
        this.deps.onRestartNeeded?.(`the writer rebuilt the shared read models (generation ${this.generation} to ${generation})`);
        return false;
      }
      if (stored !== null && (this.storedCheckpoint === null || stored > this.storedCheckpoint)) {
        this.storedCheckpoint = stored;
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    }
    this.cache.clear();
    return true;
  }

  private async apply(event: RecordedEvent): Promise<void> {
    if (this.applied !== null && event.position <= this.applied) return;
    const following = await this.followWriterTo(event.position);
    if (following) this.rowsChecked = false;
    else await this.checkRowsAsNewWriter();
    const { advertStates, propertyDocuments, outbox, searchIndex } = this.deps;
    const uow = this.uow;
    if (advertStates.handles(event) && this.runs(advertStates.name, event.position)) {
      const outcome = await advertStates.apply(event, uow);
      if ('storedAhead' in outcome) {
        // Another replica projected it into the shared store: the search index follows the rows it wrote.
        if (this.runs(searchIndex.name, event.position)) await searchIndex.followStored(outcome.propertyIds, uow);
      } else {
        const change = outcome;
        const property = this.runs(propertyDocuments.name, event.position) ? await propertyDocuments.apply(change, uow) : null;
        if (this.runs(outbox.name, event.position)) {
          // Advert events carry the document, read back when the documents are already past this event.
          const current = property ?? (await propertyDocuments.currentChange(change, uow));
          if (outbox.apply(change, current, uow) > 0) this.outboxWritten = true;
        }
        if (this.runs(searchIndex.name, event.position)) {
          // Behind the documents (a search index added later): its rows follow the stored documents.
          const current = property ?? (await propertyDocuments.currentChange(change, uow));
          if (current) searchIndex.apply(current, event.position, uow);
        }
      }
    }
    for (const name of this.names) {
      if (!this.runs(name, event.position)) continue;
      // A follower's checkpoints stay in memory: the writer's are the stored ones.
      if (!following) uow.checkpoint(name, event.position);
      this.checkpoints.set(name, event.position);
    }
    uow.events++;
    this.applied = event.position;
  }

  private scheduleCommit(): void {
    if (this.commitTimer) return;
    this.commitTimer = setTimeout(() => void this.commitWhenStoreIsFree().catch(() => undefined), BATCH_MS);
  }

  /**
   * The timed commit, once no commit is in flight. Handed over while one is, the batch would wait
   * for it inside the chain, holding up every event behind it; the next timer would then fire
   * during that wait too, and from there on each batch would hold the one event applied between
   * two commits: a store slower than `BATCH_MS` per commit would project one event per commit.
   * Waiting outside the chain, the batch goes on growing until the store is free.
   */
  private async commitWhenStoreIsFree(): Promise<void> {
    for (let inFlight = this.lastCommit; ; inFlight = this.lastCommit) {
      await inFlight;
      if (inFlight === this.lastCommit) break;
    }
    this.commitTimer = null;
    await this.serial(() => this.commitBatch());
  }

  /**
   * Hands the batch to the store and returns once the batch before it is committed: this one
   * commits while the next events are applied (the next batch reads this one's writes from it
   * meanwhile), and commits follow one another in order, so a stored checkpoint never covers a
   * batch that is not stored.
   */
  private async commitBatch(): Promise<void> {
    if (this.uow.isEmpty()) return;
    const uow = this.uow;
    const position = this.applied;
    const outboxWritten = this.outboxWritten;
    const next = new UnitOfWork(this.deps.store, this.cache, uow);
    this.uow = next;
    this.outboxWritten = false;
    const previous = this.lastCommit;
    // This batch holds only over the checkpoint the batch before it left (or that was read).
    const name = this.deps.advertStates.name;
    const moves = uow.checkpointOf(name);
    // The rows as of this batch are of this version (the writer made sure of it before writing any).
    const searchMoves = uow.checkpointOf(this.deps.searchIndex.name);
    if (searchMoves !== undefined && this.rowsChecked) uow.put(CHECKPOINTS_COLLECTION.name, searchRowVersionRecord(searchMoves));
    const expect = moves === undefined ? [] : [{ collection: CHECKPOINTS_COLLECTION.name, id: name, revision: this.storedCheckpoint }];
    // The stored checkpoint never goes back (revision guard): after this commit, the larger of the two.
    if (moves !== undefined) this.storedCheckpoint = this.storedCheckpoint === null ? moves : Math.max(this.storedCheckpoint, moves);
    const commit = (async () => {
      await previous;
      if (this.failure) throw this.failure;
      try {
        await uow.commit(CHECKPOINTS_COLLECTION.name, expect);
      } catch (error) {
        await this.commitFailed(error, position);
        throw error;
      }
      next.previousCommitted();
      this.committed = position;
      if (outboxWritten) this.deps.onOutboxWritten(uow.writtenTo<OutboxRecord>(OUTBOX_COLLECTION.name));
      this.resolveWaiters();
    })();
    this.lastCommit = commit.catch(() => undefined);
    await previous;
    if (this.failure) throw this.failure;
  }

  /** Stops the projection after a refused or failed commit, and asks for a restart. */
  private async commitFailed(error: unknown, position: number | null): Promise<void> {
    this.failure = error;
    this.stopped = true;
    if (error instanceof CommitConflictError) {
      this.logger.error(`another replica committed the read models past position ${String(error.found)} while this one wrote them: this replica stops writing and restarts`);
      await this.subscription?.unsubscribe().catch(() => undefined);
      this.deps.onRestartNeeded?.(`another replica wrote the shared read models meanwhile (${error.message})`);
      return;
    }
    // The store refuses further work after a failed commit; stop here rather than skip events.
    // A shared store has no such state: the service restarts and goes on from what is stored.
    this.logger.error(`commit failed at position ${position ?? 'none'}: ${String(error)}; the projection stopped`);
    await this.subscription?.unsubscribe().catch(() => undefined);
    this.deps.onRestartNeeded?.(`a commit of the read models failed at position ${position ?? 'none'} (${String(error)})`);
  }

  private resolveWaiters(): void {
    const position = this.committed;
    if (position === null || this.waiters.length === 0) return;
    const due = this.waiters.filter((waiter) => position >= waiter.position);
    if (due.length === 0) return;
    this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((waiter) => position < waiter.position));
    for (const waiter of due) waiter.resolve();
  }
}

function millisecondsSince(started: number): string {
  return (performance.now() - started).toFixed(0);
}
