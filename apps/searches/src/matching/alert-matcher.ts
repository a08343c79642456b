/**
 * The matching engine: reads the listings integration events from a durable JetStream consumer,
 * tests each event's property document against the saved searches (candidates from the search
 * index, then the criteria library's reference predicate), and stores in one commit the Matches
 * born, the notifications decided (in an outbox, published from there to the notifier) and when
 * each search was last alerted. Messages are acknowledged after that commit; a crash before it
 * has them sent again, and the ids derived from their causes make the second pass decide nothing
 * new (see alert-decisions.ts). Events of one property are applied in the order of their listings
 * log position: one not newer than the newest applied (a redelivery, a retried publish, an event
 * published again) is dropped, so an older document is never judged after a newer one, nor an old
 * one again for a search saved since.
 */
import { Logger } from '@nestjs/common';
import type { JsMsg, NatsConnection } from 'nats';
import {
  ALERT_NOTIFICATIONS_SUBJECT,
  listingsIntegrationEventSchema,
  type ListingsIntegrationEvent,
} from '@immo/contracts';
import { CommitConflictError, type DocumentCollection, type DocumentStore, type DocumentWrite } from '@immo/document-store';
import {
  DurableBatchConsumer,
  LISTINGS_INTEGRATION_STREAM_SETTINGS,
  OutboxRelay,
  outboxId,
  replicated,
  type OutboxRecord,
  type PublishIntegrationEvent,
} from '@immo/service-kit';
import {
  ALERT_DEAD_LETTERS_COLLECTION,
  ALERT_OUTBOX_COLLECTION,
  LAST_ALERTS_COLLECTION,
  MATCHES_COLLECTION,
  PROPERTY_VERSIONS_COLLECTION,
  type LastAlertDoc,
  type MatchDoc,
  type PropertyVersionDoc,
} from '../projection/read-models';
import { decideAlerts, matchIdOf, type StoredMatch } from './alert-decisions';
import type { MatchableSearches } from './matchable-searches';

export const MATCHER_CONSUMER = 'searches-matcher';
const MAX_BATCH = 256;
const ACK_WAIT_MS = 30_000;
/** Conflicts with another replica on one batch before it is left to JetStream's redelivery. */
const MAX_CONFLICT_RETRIES = 5;

export interface MatcherCounters {
  events: number;
  matches: number;
  notifications: number;
  rejected: number;
  /** Dropped: older than the newest event applied for their property. */
  outOfOrder: number;
}

export class AlertMatcher {
  private readonly logger = new Logger('AlertMatcher');
  private readonly matches: DocumentCollection<MatchDoc>;
  private readonly consumer: DurableBatchConsumer;
  private readonly relay: OutboxRelay;
  readonly counters: MatcherCounters = { events: 0, matches: 0, notifications: 0, rejected: 0, outOfOrder: 0 };
  private readonly versions: DocumentCollection<PropertyVersionDoc>;

  constructor(
    nats: NatsConnection,
    private readonly store: DocumentStore,
    private readonly searches: MatchableSearches,
    publish: PublishIntegrationEvent,
    private readonly now: () => Date = () => new Date(),
    /** Copies of the integration stream in a NATS cluster (`NATS_REPLICAS`). */
    replicas = 1,
  ) {
    this.matches = store.collection<MatchDoc>(MATCHES_COLLECTION);
    store.collection<LastAlertDoc>(LAST_ALERTS_COLLECTION);
    this.versions = store.collection<PropertyVersionDoc>(PROPERTY_VERSIONS_COLLECTION);
    this.relay = new OutboxRelay(store, publish, { outbox: ALERT_OUTBOX_COLLECTION, deadLetters: ALERT_DEAD_LETTERS_COLLECTION });
    this.consumer = new DurableBatchConsumer(nats, {
      stream: replicated(LISTINGS_INTEGRATION_STREAM_SETTINGS, replicas),
      durable: MATCHER_CONSUMER,
      // A new deployment does not go through a week of past facts: no search may hear of them.
      deliverFrom: 'new',
      maxBatch: MAX_BATCH,
      ackWaitMs: ACK_WAIT_MS,
      handle: (batch) => this.handle(batch),
    });
  }

  get outbox(): OutboxRelay {
    return this.relay;
  }

  async start(): Promise<void> {
    this.relay.start();
    await this.consumer.start();
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
    await this.relay.stop();
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const events = batch.flatMap((message) => {
      const event = this.parse(message);
      return event === null ? [] : [{ message, event }];
    });
    for (let attempt = 1; ; attempt++) {
      try {
        const counts = await this.decideAndCommit(events);
        this.counters.events += counts.events;
        this.counters.matches += counts.matches;
        this.counters.notifications += counts.notifications;
        this.counters.outOfOrder += counts.outOfOrder;
        if (counts.notifications > 0) this.relay.kick();
        return;
      } catch (error) {
        // Another replica applied an event of one of these properties meanwhile: decided again
        // on what it stored (its events are then dropped here as already applied).
        if (!(error instanceof CommitConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
      }
    }
  }

  /**
   * Decides the batch and commits the decisions, on condition that no other replica applied an
   * event of these properties since their newest positions were read (the conflict is thrown).
   */
  private async decideAndCommit(events: { message: JsMsg; event: ListingsIntegrationEvent }[]): Promise<Omit<MatcherCounters, 'rejected'>> {
    const counts = { events: 0, matches: 0, notifications: 0, outOfOrder: 0 };
    const now = this.now().toISOString();
    const writes = new Map<string, DocumentWrite>();
    const staged = new Map<string, StoredMatch>();
    const propertyIds = [...new Set(events.map(({ event }) => event.propertyId))];
    const newest = await this.newestPositions(propertyIds);
    const expect = propertyIds.map((id) => ({ collection: PROPERTY_VERSIONS_COLLECTION.name, id, revision: newest.get(id) ?? null }));
    for (const { message, event } of events) {
      if (event.position !== undefined) {
        const applied = newest.get(event.propertyId);
        // Not newer than what was applied: an older event, or the same one again (a redelivery
        // after a commit, or an outbox that published it again after JetStream's duplicate window).
        if (applied !== undefined && event.position <= applied) {
          counts.outOfOrder++;
          continue;
        }
        newest.set(event.propertyId, event.position);
        const version: PropertyVersionDoc = { _id: event.propertyId, revision: event.position };
        writes.set(`v/${event.propertyId}`, { collection: PROPERTY_VERSIONS_COLLECTION.name, upsert: version });
      }
      counts.events++;
      const searches = this.searches.matching(event.document);
      if (searches.length === 0) continue;
      // The matches this batch already wrote, then the stored ones, read in one query per event.
      const existing = new Map<string, StoredMatch | null>();
      const unread: string[] = [];
      for (const search of searches) {
        const id = matchIdOf(search.id, event.propertyId);
        const written = staged.get(id);
        if (written === undefined) unread.push(id);
        else existing.set(id, written);
      }
      if (unread.length > 0) for (const doc of await this.matches.find({ _id: { $in: unread } })) existing.set(doc._id, storedMatchOf(doc));
      const decision = decideAlerts({
        event,
        publishedAtMs: Math.floor(message.info.timestampNanos / 1e6),
        searches,
        existingMatch: (id) => existing.get(id) ?? null,
        now,
      });
      for (const match of decision.matches) {
        staged.set(match.id, match);
        const doc: MatchDoc = { _id: match.id, revision: message.seq, searchId: match.searchId, accountId: match.accountId, propertyId: match.propertyId, createdAt: match.createdAt, updatedAt: match.updatedAt };
        writes.set(`m/${match.id}`, { collection: MATCHES_COLLECTION.name, upsert: doc });
      }
      counts.matches += decision.created;
      decision.notifications.forEach((notification, index) => {
        const record: OutboxRecord = { _id: outboxId(message.seq, index), revision: message.seq, subject: ALERT_NOTIFICATIONS_SUBJECT, eventId: notification.id, payload: JSON.stringify(notification) };
        writes.set(`o/${record._id}`, { collection: ALERT_OUTBOX_COLLECTION.name, upsert: record });
        const lastAlert: LastAlertDoc = { _id: notification.searchId, revision: message.seq, lastAlertAt: now };
        writes.set(`l/${notification.searchId}`, { collection: LAST_ALERTS_COLLECTION.name, upsert: lastAlert });
      });
      counts.notifications += decision.notifications.length;
    }
    if (writes.size > 0) await this.store.commit([...writes.values()], { expect });
    return counts;
  }

  /** The newest log position applied for each of these properties, read in one query. */
  private async newestPositions(propertyIds: string[]): Promise<Map<string, number>> {
    const stored = await this.versions.find({ _id: { $in: [...new Set(propertyIds)] } });
    return new Map(stored.map((doc) => [doc._id, doc.revision]));
  }

  private parse(message: JsMsg): ListingsIntegrationEvent | null {
    let parsed: ReturnType<typeof listingsIntegrationEventSchema.safeParse>;
    try {
      parsed = listingsIntegrationEventSchema.safeParse(message.json());
    } catch {
      parsed = listingsIntegrationEventSchema.safeParse(undefined);
    }
    if (parsed.success) return parsed.data;
    // Retrying cannot make it valid: it is logged and acknowledged with the rest of the batch.
    this.counters.rejected++;
    this.logger.error(`integration event #${message.seq} on ${message.subject} is not valid: ${parsed.error.issues[0]?.message ?? 'unreadable'}`);
    return null;
  }
}

function storedMatchOf(doc: MatchDoc): StoredMatch {
  return { id: doc._id, searchId: doc.searchId, accountId: doc.accountId, propertyId: doc.propertyId, createdAt: doc.createdAt, updatedAt: doc.updatedAt };
}
