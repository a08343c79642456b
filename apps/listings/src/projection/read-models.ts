import type { CollectionSpec, StoredDocument } from '@immo/document-store';
import type { PropertyDocument } from '@immo/contracts';
import type { AdvertState, GroupableAdvert } from '../domain';
import type { SearchRow } from '../search/search-row';

/** One advert's folded state; `revision` is its stream revision. */
export interface AdvertRecord extends StoredDocument {
  state: AdvertState;
  /**
   * Global position of the event at `revision` (absent from records stored before it was kept):
   * ingestion appends the advert's next events at it without looking the stream's head up.
   */
  position?: number;
}

/** A property document as served; `revision` is the global position of the last event applied to it. */
export interface PropertyRecord extends StoredDocument {
  document: PropertyDocument;
}

/**
 * The little the service keeps on the heap about every advert: what grouping compares and when
 * the advert is due to expire. Loaded whole at start; the full states stay on disk.
 */
export interface AdvertFactsRecord extends StoredDocument {
  facts: AdvertFacts;
}

export type AdvertFacts = GroupableAdvert & { propertyId: string | null; expiresAt: string | null };

/**
 * An integration event waiting to be published; `_id` orders the outbox (position, then index).
 * The event is kept as the JSON text that will be sent: encoded once, when its change is projected,
 * and stored as one string instead of a deep document the store would encode and decode again.
 */
export { outboxId, type DeadLetterRecord, type OutboxRecord } from '@immo/service-kit';

/** The search row of one property (see `SearchIndexProjection`). */
export interface SearchRowRecord extends StoredDocument {
  row: SearchRow;
}

export interface CheckpointRecord extends StoredDocument {
  position: number | null;
}

/*
 * The projections' collections hold plain JSON data (`plainJson`): states folded from JSON events,
 * documents served as JSON, rows made for JSON. The embedded store keeps them as JSON
 * text, the cheapest to write and read back of what the projections do for each change.
 */

export const ADVERTS_COLLECTION: CollectionSpec = {
  name: 'listings_adverts',
  plainJson: true,
  indexes: [
    // Rebuilding one property's document reads the states of its adverts.
    { fields: { 'state.propertyId': 1 }, serves: 'adverts of a property (document rebuild)' },
  ],
};

export const PROPERTIES_COLLECTION: CollectionSpec = {
  name: 'listings_properties',
  plainJson: true,
  // Read by id only (`_id`, indexed in both stores): the search index names the page's properties
  // and the search rows, not this collection, rebuild that index at start.
  indexes: [],
};

export const ADVERT_FACTS_COLLECTION: CollectionSpec = {
  name: 'listings_advert_facts',
  plainJson: true,
  // Read whole at start (grouping candidates, expiry schedule); never queried by field.
  indexes: [],
};

export const SEARCH_ROWS_COLLECTION: CollectionSpec = {
  name: 'listings_search_rows',
  plainJson: true,
  // Read whole at start to fill the in-memory search index; never queried by field.
  indexes: [],
};

export const OUTBOX_COLLECTION: CollectionSpec = {
  name: 'listings_outbox',
  // Kept as msgpack: its payload is JSON text already, which JSON text would escape again.
  // Drained in `_id` order; `_id` needs no declared index in either store.
  indexes: [],
};

export const DEAD_LETTERS_COLLECTION: CollectionSpec = {
  name: 'listings_outbox_dead_letters',
  // Listed by operators only; never queried by field.
  indexes: [],
};

/** Checkpoints live beside the read models, written in the same commit as what they cover. */
export const CHECKPOINTS_COLLECTION: CollectionSpec = {
  name: 'listings_checkpoints',
  indexes: [],
};

