import type { CollectionSpec, StoredDocument } from '@immo/document-store';
import type { PropertyDocument } from '@immo/contracts';
import type { AdvertState } from '../domain';

/** One advert's folded state; `revision` is its stream revision, so replays are ignored. */
export interface AdvertRecord extends StoredDocument {
  state: AdvertState;
}

/**
 * A property document as served, plus what queries need that the document does not carry.
 * `revision` is the global position of the last event applied to it.
 */
export interface PropertyRecord extends StoredDocument {
  document: PropertyDocument;
  /** Epoch milliseconds of `document.createdAt`, for newest-first paging. */
  createdAtMs: number;
}

export interface CheckpointRecord extends StoredDocument {
  position: number | null;
}

export const ADVERTS_COLLECTION: CollectionSpec = {
  name: 'listings_adverts',
  indexes: [
    // Rebuilding one property's document reads the states of its adverts.
    { fields: { 'state.propertyId': 1 }, serves: 'adverts of a property (document rebuild on start)' },
  ],
};

export const PROPERTIES_COLLECTION: CollectionSpec = {
  name: 'listings_properties',
  indexes: [
    // GET /documents/properties answers newest first.
    { fields: { createdAtMs: -1 }, serves: 'properties collection ordered by createdAt desc' },
  ],
};

/** The projection's checkpoint lives beside its read models (same store, same snapshot). */
export const CHECKPOINTS_COLLECTION: CollectionSpec = {
  name: 'listings_checkpoints',
  indexes: [],
};

export const PROPERTY_PROJECTION_NAME = 'property-documents';
