import { z } from 'zod';
import { uuidSchema } from '../listings/listings-messages';

/** Request/reply subjects of the searches service (accounts, keys, saved searches). */
export const SEARCHES_SUBJECTS = {
  createAccount: 'searches.cmd.create-account.v1',
  listAccounts: 'searches.query.accounts.v1',
  issueKey: 'searches.cmd.issue-key.v1',
  revokeKey: 'searches.cmd.revoke-key.v1',
  /** The gateway asks who holds a key, by its id; it compares the digest itself. */
  keyById: 'searches.query.key-by-id.v1',
  /**
   * The id of every key ever issued, a page at a time: a gateway loads them at start (and after a
   * NATS reconnection) and refuses ids not among them without asking `keyById`.
   */
  issuedKeyIds: 'searches.query.issued-key-ids.v1',
  createSearch: 'searches.cmd.create-search.v1',
  updateSearch: 'searches.cmd.update-search.v1',
  deleteSearch: 'searches.cmd.delete-search.v1',
  disableNotifications: 'searches.cmd.disable-notifications.v1',
  getSearch: 'searches.query.search.v1',
  /** The criteria query of a search, to run on listings (`GET /searches/{id}/properties`). */
  searchCriteria: 'searches.query.search-criteria.v1',
  listSearches: 'searches.query.searches.v1',
  /** Broadcast (core NATS) once a revocation is committed: every gateway drops the key at once. */
  keyRevoked: 'searches.event.key-revoked.v1',
  /**
   * Broadcast (core NATS) once a key's issue is committed, and before the command that issued it
   * is answered: every gateway adds the id to the ids it knows, so the key works on each at once.
   */
  keyIssued: 'searches.event.key-issued.v1',
  /** A search's matches, newest first (`GET /searches/{id}/matches`). */
  listMatches: 'searches.query.matches.v1',
  /** The caller's matches across its searches (`GET /matches`). */
  accountMatches: 'searches.query.account-matches.v1',
  /** One of the caller's matches (`GET /matches/{id}`). */
  match: 'searches.query.match.v1',
  /** The notifier asks, before an attempt, whether a search still wants its notifications. */
  notificationState: 'searches.query.notification-state.v1',
  /** The notifier reports a receiver that answered 410 Gone: the search's notifications are turned off. */
  endpointGone: 'searches.cmd.endpoint-gone.v1',
  /** Broadcast (core NATS) when a search is updated, disabled or deleted: the notifier drops what it cached. */
  searchChanged: 'searches.event.search-changed.v1',
} as const;

/** The admin key's account: it owns no searches but may call the admin operations. */
export const accountIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be an account id (UUID)');
export const keyIdSchema = z.string().regex(/^[0-9a-z]{12}$/, 'must be a key id');

export const createAccountRequestSchema = z.object({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') }).strict();
export const listAccountsRequestSchema = z.object({ page: z.number().int().min(1).default(1) }).strict();
export const issueKeyRequestSchema = z.object({ accountId: accountIdSchema }).strict();
export const revokeKeyRequestSchema = z.object({ accountId: accountIdSchema, keyId: keyIdSchema }).strict();
export const keyByIdRequestSchema = z.object({ keyId: keyIdSchema }).strict();
/** A page of issued key ids: the first without `after`, then each after the last id of the one before. */
export const issuedKeyIdsRequestSchema = z.object({ after: keyIdSchema.optional() }).strict();

export interface AccountKeySummary {
  keyId: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface AccountSummary {
  id: string;
  name: string;
  createdAt: string;
  keys: AccountKeySummary[];
}

/** `POST /admin/accounts`: the key is shown this once and never stored. */
export interface CreatedAccount {
  id: string;
  name: string;
  createdAt: string;
  keyId: string;
  apiKey: string;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

export interface AccountsPage {
  items: AccountSummary[];
  totalItems: number;
}

/** A live key: the SHA-256 digest of the secret (hex) and whom it belongs to. */
export interface KeyHolder {
  keyId: string;
  accountId: string;
  digest: string;
}

export interface KeyRevokedMessage {
  keyId: string;
}

export interface KeyIssuedMessage {
  keyId: string;
}

/** Key ids in ascending order; `next` is the `after` of the following page, null after the last. */
export interface IssuedKeyIdsPage {
  keyIds: string[];
  next: string | null;
}

/** Who is calling, as the gateway authenticated it: searches are scoped by `accountId`. */
export const callerSchema = z.object({ accountId: accountIdSchema }).strict();
export type Caller = z.infer<typeof callerSchema>;

/** The `Idempotency-Key` of a creation: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export const createSearchRequestSchema = z
  .object({ caller: callerSchema, body: z.unknown(), platformOrigin: z.string().max(200).optional(), idempotencyKey: z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional() })
  .strict();
/**
 * How an update lays its body over the stored search: `fields` (PUT, POST; the default) replaces
 * each field sent, `json-merge-patch` (PATCH) merges objects as RFC 7396 does. Either way a field
 * left out keeps its stored value.
 */
export const SEARCH_UPDATE_MERGES = ['fields', 'json-merge-patch'] as const;
export type SearchUpdateMerge = (typeof SEARCH_UPDATE_MERGES)[number];

export const updateSearchRequestSchema = z
  .object({ caller: callerSchema, id: uuidSchema, body: z.unknown(), platformOrigin: z.string().max(200).optional(), merge: z.enum(SEARCH_UPDATE_MERGES).optional() })
  .strict();
export const searchByIdRequestSchema = z.object({ caller: callerSchema, id: uuidSchema }).strict();
export const listSearchesRequestSchema = z.object({ caller: callerSchema, query: z.record(z.string(), z.unknown()) }).strict();
export const disableNotificationsRequestSchema = z
  .object({
    searchToken: z.string().min(1).max(200),
    reason: z.string().max(200).optional(),
    comment: z.string().max(2000).optional(),
  })
  .strict();

export interface SearchesPage<T> {
  items: T[];
  totalItems: number;
  page: number;
  itemsPerPage: number;
  /** Query parameters the listing does not know (named in `X-Ignored-Parameters`). */
  ignoredParameters: string[];
}

export const listMatchesRequestSchema = z.object({ caller: callerSchema, id: uuidSchema, page: z.number().int().min(1).default(1) }).strict();
/** Largest page of `GET /matches`. */
export const MAX_MATCHES_PER_PAGE = 30;

export const accountMatchesRequestSchema = z
  .object({
    caller: callerSchema,
    /** Only the matches of these searches (an unknown or deleted one matches nothing). */
    searchIds: z.array(uuidSchema).min(1).max(200).optional(),
    propertyIds: z.array(uuidSchema).min(1).max(200).optional(),
    order: z.enum(['asc', 'desc']).default('desc'),
    page: z.number().int().min(1).default(1),
    itemsPerPage: z.number().int().min(1).max(MAX_MATCHES_PER_PAGE).default(MAX_MATCHES_PER_PAGE),
  })
  .strict();
export type AccountMatchesRequest = z.output<typeof accountMatchesRequestSchema>;
export const matchByIdRequestSchema = z.object({ caller: callerSchema, id: uuidSchema }).strict();

export const notificationStateRequestSchema = z.object({ searchId: uuidSchema }).strict();
export const endpointGoneRequestSchema = z.object({ searchId: uuidSchema, endpoint: z.string().min(1) }).strict();

/** Whether a search still wants notifications, and to which endpoints (the notifier checks before each attempt). */
export interface NotificationState {
  searchId: string;
  /** False once the search is deleted or its notifications are off: pending deliveries are dropped. */
  active: boolean;
  endpointRecipient: string | null;
  eventEndpoint: string | null;
  /** The e-mail address alerts go to; null: none. */
  notificationRecipient: string | null;
}

export interface SearchChangedMessage {
  searchId: string;
}
