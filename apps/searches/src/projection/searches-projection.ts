import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CommitConflictError, type DocumentCollection, type DocumentStore, type DocumentWrite, type StoredDocument } from '@immo/document-store';
import type { AllSubscription, EventStore, RecordedEvent } from '@immo/event-store';
import { SerialBatches } from '@immo/runtime';
import { ACCOUNT_STREAM_PREFIX, evolveAccount, isAccountEvent, type AccountEvent, type AccountState } from '../accounts/account-events';
import { evolveSearch, isSearchEvent, SEARCH_STREAM_PREFIX, type SearchEvent } from '../searches/search-events';
import {
  ACCOUNTS_COLLECTION,
  CHECKPOINTS_COLLECTION,
  KEYS_COLLECTION,
  PROJECTION_CHECKPOINT_ID,
  SEARCHES_COLLECTION,
  type AccountDoc,
  type CheckpointDoc,
  type KeyDoc,
  type SearchDoc,
} from './read-models';

const RESUBSCRIBE_MS = 1000;
/** Events committed together at most: concurrent commands share one store transaction. */
const MAX_BATCH = 200;

export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A document as the batch being applied sees it: its own earlier writes first. */
type Reader = <D extends StoredDocument>(collection: DocumentCollection<D>, id: string) => Promise<D | null>;

/**
 * Projects account and search events into their read models. The events that arrived while the
 * previous commit ran are applied together: their writes and the checkpoint are one store commit,
 * and every document carries the position of the event that wrote it (a replayed event finds its
 * writes already there and changes nothing), so a crash at any instant leaves a state that replay
 * from the stored checkpoint makes exact.
 *
 * Replicas sharing one store (MongoDB, or the one-machine shared store) all run this projection,
 * and one writer commits each stretch of the log: a commit holds only if the stored checkpoint is
 * still the one this replica last committed or read. The replica that lost reads what the winner
 * stored for the events it was applying, hands those documents to its listeners (its match
 * index follows what was committed, whoever wrote it) and goes on after the stored checkpoint.
 */
export class SearchesProjection {
  private readonly logger = new Logger('SearchesProjection');
  readonly accounts: DocumentCollection<AccountDoc>;
  readonly keys: DocumentCollection<KeyDoc>;
  readonly searches: DocumentCollection<SearchDoc>;
  private readonly checkpoints: DocumentCollection<CheckpointDoc>;
  private subscription: AllSubscription | null = null;
  private committed: number | null = null;
  private headAtStart: number | null = null;
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private stopped = true;
  /** Bumped by each subscription: events of an abandoned one are dropped. */
  private generation = 0;
  /** Events received and not yet committed, committed a batch at a time. */
  private readonly batches = new SerialBatches<{ event: RecordedEvent; generation: number }>(
    MAX_BATCH,
    (batch) => this.commitBatch(batch),
    (error) => this.logger.error(String(error)),
  );
  private readonly committedListeners: ((event: RecordedEvent) => void)[] = [];
  private readonly searchListeners: ((searchId: string, doc: SearchDoc | null, position: number) => void)[] = [];

  constructor(
    private readonly eventStore: EventStore,
    private readonly store: DocumentStore,
  ) {
    this.accounts = store.collection<AccountDoc>(ACCOUNTS_COLLECTION);
    this.keys = store.collection<KeyDoc>(KEYS_COLLECTION);
    this.searches = store.collection<SearchDoc>(SEARCHES_COLLECTION);
    this.checkpoints = store.collection<CheckpointDoc>(CHECKPOINTS_COLLECTION);
  }

  /** Called with each event once its writes are committed (revocation broadcasts). */
  onCommitted(listener: (event: RecordedEvent) => void): void {
    this.committedListeners.push(listener);
  }

  /**
   * Called with each search document a commit wrote (null once deleted), before the commands
   * waiting for that commit are answered: the matcher knows a search once its creation is answered.
   */
  onSearchCommitted(listener: (searchId: string, doc: SearchDoc | null, position: number) => void): void {
    this.searchListeners.push(listener);
  }

  get checkpoint(): number | null {
    return this.committed;
  }

  /** Caught up with the log as it was at start: reads and commands may be answered. */
  caughtUp(): boolean {
    return this.headAtStart === null || (this.committed !== null && this.committed >= this.headAtStart);
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.committed = (await this.checkpoints.findById(PROJECTION_CHECKPOINT_ID))?.position ?? null;
    this.headAtStart = await this.eventStore.headPosition();
    if (this.committed !== null && (this.headAtStart === null || this.committed > this.headAtStart)) {
      // The log lost events the read models had applied (a machine crash before the broker's files
      // caught up): appends now reuse those positions, which the checkpoint would skip for good.
      this.logger.warn(`read models are ahead of the event log (checkpoint ${this.committed}, log head ${this.headAtStart ?? 'none'}): dropping them and replaying the log`);
      await this.dropReadModels();
      this.committed = null;
    }
    this.follow(this.committed);
  }

  /** Every document and the checkpoint, in one transaction: a crash never leaves the checkpoint over dropped documents. */
  private async dropReadModels(): Promise<void> {
    const writes: DocumentWrite[] = [];
    for (const collection of [this.accounts, this.keys, this.searches, this.checkpoints] as DocumentCollection<StoredDocument>[]) {
      for (const { _id } of await collection.find({}, { projection: { _id: 1 } })) writes.push({ collection: collection.name, deleteId: _id });
    }
    await this.store.commit(writes);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.unsubscribe();
    this.subscription = null;
    // The commit under way finishes before the store may close.
    await this.batches.idle();
  }

  /** Resolves once the event at `position` is committed to the read models, or after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (this.committed !== null && this.committed >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push({
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      });
    });
  }

  /** Drops the read models and replays the whole log into them. */
  async rebuild(): Promise<void> {
    await this.stop();
    await Promise.all([this.accounts.clear(), this.keys.clear(), this.searches.clear(), this.checkpoints.clear()]);
    this.committed = null;
    await this.start();
  }

  private follow(from: number | null): void {
    const generation = ++this.generation;
    this.batches.clear();
    const subscription = this.eventStore.subscribeToAll({
      ...(from !== null ? { fromPosition: from } : {}),
      streamPrefixes: [ACCOUNT_STREAM_PREFIX, SEARCH_STREAM_PREFIX],
    });
    this.subscription = subscription;
    void (async () => {
      try {
        for await (const event of subscription) {
          if (this.stopped || generation !== this.generation) break;
          this.batches.push({ event, generation });
          // Backpressure: a long replay waits for its commits instead of queueing the whole log.
          if (this.batches.backlog >= MAX_BATCH) await this.batches.idle();
        }
      } catch (error) {
        this.resume(generation, error);
      }
    })();
  }

  /** Starts over after the last commit, once: a failed read or commit, or a broken subscription. */
  private resume(generation: number, error: unknown): void {
    if (this.stopped || generation !== this.generation) return;
    this.generation++;
    // The events behind the failed ones wait for the next subscription, which starts after the last commit.
    this.batches.clear();
    this.logger.error(`projection failed after position ${this.committed ?? 'none'}: ${String(error)}; resuming`);
    void this.subscription?.unsubscribe();
    setTimeout(() => {
      if (!this.stopped) this.follow(this.committed);
    }, RESUBSCRIBE_MS).unref();
  }

  /** Commits a batch of the current subscription's events; a failure starts over after the last commit. */
  private async commitBatch(batch: { event: RecordedEvent; generation: number }[]): Promise<void> {
    const generation = batch[0]?.generation;
    if (this.stopped || generation !== this.generation) return;
    try {
      await this.applyBatch(batch.map(({ event }) => event));
    } catch (error) {
      this.resume(generation, error);
    }
  }

  private async applyBatch(events: RecordedEvent[]): Promise<void> {
    const fresh = events.filter((event) => this.committed === null || event.position > this.committed);
    const last = fresh[fresh.length - 1];
    if (last === undefined) return;
    // Later events of the batch read what earlier ones wrote; one write per document is committed.
    const staged = new Map<string, DocumentWrite>();
    const read = async <D extends StoredDocument>(collection: DocumentCollection<D>, id: string): Promise<D | null> => {
      const write = staged.get(`${collection.name}/${id}`);
      if (write === undefined) return collection.findById(id);
      return 'upsert' in write ? (write.upsert as D) : null;
    };
    for (const event of fresh) {
      const writes = isAccountEvent(event.type)
        ? await this.accountWrites(event as RecordedEvent & AccountEvent, read)
        : isSearchEvent(event.type)
          ? await this.searchWrites(event as RecordedEvent & SearchEvent, read)
          : [];
      for (const write of writes) {
        const id = 'upsert' in write ? write.upsert._id : write.deleteId;
        staged.set(`${write.collection}/${id}`, write);
      }
    }
    const checkpoint: DocumentWrite = {
      collection: CHECKPOINTS_COLLECTION.name,
      upsert: { _id: PROJECTION_CHECKPOINT_ID, revision: last.position, position: last.position } as CheckpointDoc,
    };
    try {
      await this.store.commit([...staged.values(), checkpoint], {
        expect: [{ collection: CHECKPOINTS_COLLECTION.name, id: PROJECTION_CHECKPOINT_ID, revision: this.committed }],
      });
    } catch (error) {
      if (!(error instanceof CommitConflictError)) throw error;
      await this.followOtherWriter(fresh);
      return;
    }
    const searches = [...staged.values()].flatMap((write) =>
      write.collection !== SEARCHES_COLLECTION.name ? [] : ['upsert' in write ? { id: write.upsert._id, doc: write.upsert as SearchDoc } : { id: write.deleteId, doc: null }],
    );
    this.settle(fresh, last.position, searches);
  }

  /** The events up to `position` are committed: listeners hear of them, commands waiting for them are answered. */
  private settle(events: readonly RecordedEvent[], position: number, searches: readonly { id: string; doc: SearchDoc | null }[]): void {
    this.committed = position;
    for (const { id, doc } of searches) for (const listener of this.searchListeners) listener(id, doc, doc?.revision ?? position);
    for (const event of events) for (const listener of this.committedListeners) listener(event);
    this.answerWaiters(position);
  }

  /**
   * Another replica committed (some of) these events first. What it stored for them is the truth:
   * the searches they touched are read back for the listeners; the events past its checkpoint are
   * applied on top. A checkpoint behind this replica's (the read models were rebuilt) starts the
   * projection over from there.
   */
  private async followOtherWriter(events: RecordedEvent[]): Promise<void> {
    const stored = (await this.checkpoints.findById(PROJECTION_CHECKPOINT_ID))?.position ?? null;
    if (stored === null || (this.committed !== null && stored < this.committed)) {
      this.committed = stored;
      throw new Error(`the read models' checkpoint went back to ${stored ?? 'none'} (rebuilt by another replica): following from there`);
    }
    const done = events.filter((event) => event.position <= stored);
    const rest = events.filter((event) => event.position > stored);
    // The projection stands at the last event it has heard of: the stored checkpoint may be past
    // events not received yet, unless one past it has arrived (the log is read in order).
    const upTo = rest.length > 0 ? stored : (done[done.length - 1] as RecordedEvent).position;
    const ids = [...new Set(done.flatMap((event) => (isSearchEvent(event.type) ? [(event as RecordedEvent & SearchEvent).data.searchId] : [])))];
    const docs = ids.length === 0 ? new Map<string, SearchDoc>() : new Map((await this.searches.find({ _id: { $in: ids } })).map((doc) => [doc._id, doc]));
    this.settle(
      done,
      upTo,
      ids.map((id) => ({ id, doc: docs.get(id) ?? null })),
    );
    if (rest.length > 0) await this.applyBatch(rest);
  }

  private answerWaiters(position: number): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i] as { position: number; resolve: () => void };
      if (waiter.position <= position) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  private async accountWrites(event: RecordedEvent & AccountEvent, read: Reader): Promise<DocumentWrite[]> {
    const current = await read(this.accounts, event.data.accountId);
    const before: AccountState | null = current ? { id: current._id, name: current.name, createdAt: current.createdAt, keys: current.keys } : null;
    const after = evolveAccount(before, event);
    if (!after) return [];
    const writes: DocumentWrite[] = [
      { collection: ACCOUNTS_COLLECTION.name, upsert: { _id: after.id, revision: event.position, name: after.name, createdAt: after.createdAt, keys: after.keys } as AccountDoc },
    ];
    if (event.type !== 'AccountCreated') {
      const key = after.keys.find((candidate) => candidate.keyId === event.data.keyId);
      if (key) {
        writes.push({
          collection: KEYS_COLLECTION.name,
          upsert: { _id: key.keyId, revision: event.position, accountId: after.id, digest: key.digest, revokedAt: key.revokedAt } as KeyDoc,
        });
      }
    }
    return writes;
  }

  private async searchWrites(event: RecordedEvent & SearchEvent, read: Reader): Promise<DocumentWrite[]> {
    const current = await read(this.searches, event.data.searchId);
    const after = evolveSearch(current?.state ?? null, event);
    if (!after) return [];
    if (after.deleted) return [{ collection: SEARCHES_COLLECTION.name, deleteId: after.id }];
    const doc: SearchDoc = {
      _id: after.id,
      revision: event.position,
      accountId: after.accountId,
      state: after,
      notificationEnabled: after.spec.notificationEnabled,
      titleFolded: after.spec.title.toLowerCase(),
      createdAt: after.createdAt,
      tokenDigest: tokenDigest(after.token),
    };
    return [{ collection: SEARCHES_COLLECTION.name, upsert: doc }];
  }
}
