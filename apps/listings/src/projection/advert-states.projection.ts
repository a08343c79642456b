import { LRUCache } from 'lru-cache';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { RecordedEvent } from '@immo/event-store';
import { ADVERT_STREAM_PREFIX, evolve, fromRecordedEvent, type AdvertDomainEvent, type AdvertState } from '../domain';
import { type AdvertDirectory, factsOf, sameFacts } from './advert-directory';
import { ADVERT_FACTS_COLLECTION, ADVERTS_COLLECTION, type AdvertFactsRecord, type AdvertRecord } from './read-models';
import type { UnitOfWork } from './unit-of-work';

/** What one advert event did to its advert: the input of the projections downstream. */
export interface AdvertChange {
  event: RecordedEvent;
  advertId: string;
  domainEvent: AdvertDomainEvent;
  previous: AdvertState | null;
  next: AdvertState;
}

/**
 * An advert event whose stored record is already past it: another replica writing the same store
 * (MongoDB) folded it, with what follows. `propertyIds`: the properties the advert belongs and
 * belonged to, whose stored search rows this replica's index must now follow.
 */
export interface StoredAhead {
  storedAhead: true;
  propertyIds: string[];
}

/**
 * Advert states: folds each advert stream's events into its state (`listings_adverts`) and its
 * facts (`listings_advert_facts`, plus the in-memory directory). Handles every advert event.
 */
export class AdvertStatesProjection {
  static readonly NAME = 'advert-states';
  readonly name = AdvertStatesProjection.NAME;
  private readonly adverts: DocumentCollection<AdvertRecord>;
  /**
   * Records ingestion read from the store, kept for this projection's read of the same advert a
   * moment later (its event follows within the projection's lag), so each is decoded once.
   */
  private readonly readByIngestion = new LRUCache<string, AdvertRecord>({ max: 2_000 });

  constructor(
    store: DocumentStore,
    private readonly directory: AdvertDirectory,
  ) {
    this.adverts = store.collection<AdvertRecord>(ADVERTS_COLLECTION);
    store.collection<AdvertFactsRecord>(ADVERT_FACTS_COLLECTION);
  }

  handles(event: RecordedEvent): boolean {
    return event.streamName.startsWith(ADVERT_STREAM_PREFIX);
  }

  async apply(event: RecordedEvent, uow: UnitOfWork): Promise<AdvertChange | StoredAhead> {
    const advertId = event.streamName.slice(ADVERT_STREAM_PREFIX.length);
    const record = await uow.read<AdvertRecord>(ADVERTS_COLLECTION.name, advertId, (id) => this.stateBefore(id, event.revision));
    const previous = record?.state ?? null;
    // `version` counts folded events: a revision below it is already in the state. Nothing to
    // write, but this replica's directory follows what is stored, whoever wrote it.
    if (previous && event.revision < previous.version) return this.follow(advertId, previous);
    const domainEvent = fromRecordedEvent(event);
    const next = evolve(previous, domainEvent);
    const facts = factsOf(next);
    uow.put(ADVERTS_COLLECTION.name, { _id: advertId, revision: event.revision, position: event.position, state: next } as AdvertRecord);
    // Most events are recrawls, which change no fact grouping or expiry reads: nothing to write.
    if (previous === null || !sameFacts(factsOf(previous), facts)) {
      uow.put(ADVERT_FACTS_COLLECTION.name, { _id: advertId, revision: event.revision, facts } as AdvertFactsRecord);
      this.directory.track(facts);
    }
    if (next.propertyId !== null) uow.addMember(next.propertyId, advertId);
    return { event, advertId, domainEvent, previous, next };
  }

  private follow(advertId: string, stored: AdvertState): StoredAhead {
    const propertyIds = new Set<string>();
    const known = this.directory.matcher.propertyOf(advertId);
    if (known !== undefined) propertyIds.add(known);
    if (stored.propertyId !== null) propertyIds.add(stored.propertyId);
    this.directory.track(factsOf(stored));
    return { storedAhead: true, propertyIds: [...propertyIds] };
  }

  /** An advert's stored record, for ingestion to decide on; kept a moment for `apply` (see `stateBefore`). */
  async storedRecord(advertId: string): Promise<AdvertRecord | null> {
    const record = await this.adverts.findById(advertId);
    if (record) this.readByIngestion.set(advertId, record);
    return record;
  }

  /**
   * The record an advert event at `revision` applies to, when neither the batch nor the cache has
   * it: the one ingestion read, if it is exactly the state before this event (one revision
   * below), or else the store's. A record ingestion read before a later change committed is
   * older than that: it is never taken for current.
   */
  private async stateBefore(advertId: string, revision: number): Promise<AdvertRecord | null> {
    const read = this.readByIngestion.get(advertId);
    if (read !== undefined) {
      this.readByIngestion.delete(advertId);
      if (read.revision === revision - 1) return read;
    }
    return this.adverts.findById(advertId);
  }

  /** Forgets what ingestion read (the read models are being rebuilt). */
  clear(): void {
    this.readByIngestion.clear();
  }

  /** States of a property's adverts as of this batch. */
  async membersOf(propertyId: string, uow: UnitOfWork): Promise<AdvertState[]> {
    // Member ids come from the index (no document read); states from the batch, the cache or the store.
    const ids = new Set((await this.adverts.find({ 'state.propertyId': propertyId }, { projection: { _id: 1 } })).map((r) => r._id));
    for (const advertId of uow.membersOf(propertyId)) ids.add(advertId);
    const states: AdvertState[] = [];
    for (const advertId of ids) {
      const record = await uow.read<AdvertRecord>(ADVERTS_COLLECTION.name, advertId, (id) => this.adverts.findById(id));
      if (record && record.state.propertyId === propertyId) states.push(record.state);
    }
    return states;
  }
}
