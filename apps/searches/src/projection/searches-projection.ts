import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { DocumentCollection, DocumentStore, DocumentWrite } from '@immo/document-store';
import type { AllSubscription, EventStore, RecordedEvent } from '@immo/event-store';
import { ACCOUNT_STREAM_PREFIX, evolveAccount, isAccountEvent, type AccountEvent, type AccountState } from '../accounts/account-events';
import { evolveSearch, isSearchEvent, SEARCH_STREAM_PREFIX, type SearchEvent } from '../searches/search-events';
import { searchRecordOf } from '../searches/search-record';
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

export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Projects account and search events into their read models. Each event's writes and the
 * checkpoint are one store commit, and every document carries the position of the event that
 * wrote it (a replayed event finds its writes already there and changes nothing), so a crash at
 * any instant leaves a state that replay from the stored checkpoint makes exact.
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
  private readonly committedListeners: ((event: RecordedEvent) => void)[] = [];

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
    this.follow(this.committed);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.unsubscribe();
    this.subscription = null;
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
    const subscription = this.eventStore.subscribeToAll({
      ...(from !== null ? { fromPosition: from } : {}),
      streamPrefixes: [ACCOUNT_STREAM_PREFIX, SEARCH_STREAM_PREFIX],
    });
    this.subscription = subscription;
    void (async () => {
      try {
        for await (const event of subscription) {
          await this.apply(event);
          if (this.stopped) break;
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.error(`subscription failed after position ${this.committed ?? 'none'}: ${String(error)}; resuming`);
        await new Promise((r) => setTimeout(r, RESUBSCRIBE_MS));
        if (!this.stopped) this.follow(this.committed);
      }
    })();
  }

  private async apply(event: RecordedEvent): Promise<void> {
    if (this.committed !== null && event.position <= this.committed) return;
    const writes: DocumentWrite[] = [];
    if (isAccountEvent(event.type)) writes.push(...(await this.accountWrites(event as RecordedEvent & AccountEvent)));
    else if (isSearchEvent(event.type)) writes.push(...(await this.searchWrites(event as RecordedEvent & SearchEvent)));
    writes.push({ collection: CHECKPOINTS_COLLECTION.name, upsert: { _id: PROJECTION_CHECKPOINT_ID, revision: event.position, position: event.position } as CheckpointDoc });
    await this.store.commit(writes);
    this.committed = event.position;
    for (const listener of this.committedListeners) listener(event);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i] as { position: number; resolve: () => void };
      if (waiter.position <= event.position) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  private async accountWrites(event: RecordedEvent & AccountEvent): Promise<DocumentWrite[]> {
    const current = await this.accounts.findById(event.data.accountId);
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

  private async searchWrites(event: RecordedEvent & SearchEvent): Promise<DocumentWrite[]> {
    const current = await this.searches.findById(event.data.searchId);
    const after = evolveSearch(current?.state ?? null, event);
    if (!after) return [];
    if (after.deleted) return [{ collection: SEARCHES_COLLECTION.name, deleteId: after.id }];
    const doc: SearchDoc = {
      _id: after.id,
      revision: event.position,
      accountId: after.accountId,
      state: after,
      record: searchRecordOf(after),
      notificationEnabled: after.spec.notificationEnabled,
      titleFolded: after.spec.title.toLowerCase(),
      createdAt: after.createdAt,
      tokenDigest: tokenDigest(after.token),
    };
    return [{ collection: SEARCHES_COLLECTION.name, upsert: doc }];
  }
}
