import type { CollectionSpec, StoredDocument } from '@immo/document-store';
import type { AccountKey } from '../accounts/account-events';
import type { SearchState } from '../searches/search-events';

export interface AccountDoc extends StoredDocument {
  name: string;
  createdAt: string;
  keys: AccountKey[];
}

/** One per issued key, revoked ones included (the gateway asks by key id). */
export interface KeyDoc extends StoredDocument {
  accountId: string;
  digest: string;
  revokedAt: string | null;
}

export interface SearchDoc extends StoredDocument {
  accountId: string;
  /** The whole state, to fold the next event onto; the API record is derived from it on read. */
  state: SearchState;
  notificationEnabled: boolean;
  /** Lower-cased title: the `title` filter is a case-insensitive substring. */
  titleFolded: string;
  createdAt: string;
  /** SHA-256 of the unsubscribe token (hex): found by digest, compared in constant time. */
  tokenDigest: string;
}

export interface CheckpointDoc extends StoredDocument {
  position: number | null;
}

export const ACCOUNTS_COLLECTION: CollectionSpec = {
  name: 'searches_accounts',
  // Listed page by page in creation order (`GET /admin/accounts`).
  indexes: [{ fields: { createdAt: 1 }, serves: 'accounts in creation order' }],
};

export const KEYS_COLLECTION: CollectionSpec = {
  name: 'searches_keys',
  // Read by id (the key id) only.
  indexes: [],
};

export const SEARCHES_COLLECTION: CollectionSpec = {
  name: 'searches_searches',
  indexes: [
    // An account's searches (`GET /searches`, the per-account limit).
    { fields: { accountId: 1, createdAt: -1 }, serves: "an account's searches, newest first" },
    // `GET /searches?order[title]=…` and the `title` filter (a substring of the folded title).
    { fields: { accountId: 1, titleFolded: 1 }, serves: "an account's searches by title" },
    // `GET /searches?notificationEnabled=…`.
    { fields: { accountId: 1, notificationEnabled: 1, createdAt: -1 }, serves: "an account's searches with notifications on or off" },
    // The public unsubscribe route finds a search by its token.
    { fields: { tokenDigest: 1 }, serves: 'search by unsubscribe token' },
  ],
};

export const CHECKPOINTS_COLLECTION: CollectionSpec = { name: 'searches_checkpoints', indexes: [] };
export const PROJECTION_CHECKPOINT_ID = 'searches';

/** A property that met a search's criteria: one per search and property, ever. */
export interface MatchDoc extends StoredDocument {
  searchId: string;
  accountId: string;
  propertyId: string;
  createdAt: string;
  updatedAt: string;
}

/** When a search was last notified; kept beside the search so alerts append no events to its stream. */
export interface LastAlertDoc extends StoredDocument {
  lastAlertAt: string;
}

export const MATCHES_COLLECTION: CollectionSpec = {
  name: 'searches_matches',
  // A match is found by its id (derived from search and property).
  indexes: [
    // `GET /searches/{id}/matches` and `GET /matches?search=…`, newest (or oldest) first.
    { fields: { searchId: 1, createdAt: -1 }, serves: "a search's matches, newest first" },
    // `GET /matches`: the account's matches across its searches, newest (or oldest) first.
    { fields: { accountId: 1, createdAt: -1 }, serves: "an account's matches, newest first" },
    // `GET /matches?property=…`: a property's matches (the account is checked on each, a handful).
    { fields: { propertyId: 1, accountId: 1, createdAt: -1 }, serves: "a property's matches in an account" },
  ],
};

export const LAST_ALERTS_COLLECTION: CollectionSpec = { name: 'searches_last_alerts', indexes: [] };

/**
 * The newest listings log position the matcher applied for each property (its `revision`): an
 * integration event at or before it is dropped, so an older document is never judged after a newer
 * one. Written in the matcher's commit; found by id only.
 */
export type PropertyVersionDoc = StoredDocument;
export const PROPERTY_VERSIONS_COLLECTION: CollectionSpec = { name: 'searches_property_versions', indexes: [] };

/** Notifications decided by the matcher, published from here to the notifier (see OutboxRelay). */
export const ALERT_OUTBOX_COLLECTION: CollectionSpec = { name: 'searches_alert_outbox', indexes: [] };
export const ALERT_DEAD_LETTERS_COLLECTION: CollectionSpec = { name: 'searches_alert_outbox_dead_letters', indexes: [] };
