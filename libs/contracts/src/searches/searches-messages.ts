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
} as const;

/** The admin key's account: it owns no searches but may call the admin operations. */
export const accountIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be an account id (UUID)');
export const keyIdSchema = z.string().regex(/^[0-9a-z]{12}$/, 'must be a key id');

export const createAccountRequestSchema = z.object({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') }).strict();
export const listAccountsRequestSchema = z.object({ page: z.number().int().min(1).default(1) }).strict();
export const issueKeyRequestSchema = z.object({ accountId: accountIdSchema }).strict();
export const revokeKeyRequestSchema = z.object({ accountId: accountIdSchema, keyId: keyIdSchema }).strict();
export const keyByIdRequestSchema = z.object({ keyId: keyIdSchema }).strict();

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

/** Who is calling, as the gateway authenticated it: searches are scoped by `accountId`. */
export const callerSchema = z.object({ accountId: accountIdSchema }).strict();
export type Caller = z.infer<typeof callerSchema>;

export const createSearchRequestSchema = z
  .object({ caller: callerSchema, body: z.unknown(), platformOrigin: z.string().max(200).optional() })
  .strict();
export const updateSearchRequestSchema = z
  .object({ caller: callerSchema, id: uuidSchema, body: z.unknown(), platformOrigin: z.string().max(200).optional() })
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
