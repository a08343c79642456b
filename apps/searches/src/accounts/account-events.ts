/**
 * Accounts are event-sourced, one stream per account (`account-<id>`): created, a key issued, a
 * key revoked. Keys appear only as digests.
 */
export const ACCOUNT_STREAM_PREFIX = 'account-';
export const accountStream = (accountId: string) => `${ACCOUNT_STREAM_PREFIX}${accountId}`;

export type AccountEvent =
  | { type: 'AccountCreated'; data: { accountId: string; name: string; createdAt: string } }
  | { type: 'ApiKeyIssued'; data: { accountId: string; keyId: string; digest: string; createdAt: string } }
  | { type: 'ApiKeyRevoked'; data: { accountId: string; keyId: string; revokedAt: string } };

export interface AccountKey {
  keyId: string;
  digest: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface AccountState {
  id: string;
  name: string;
  createdAt: string;
  keys: AccountKey[];
}

/** The account after an event; null before its creation. */
export function evolveAccount(state: AccountState | null, event: AccountEvent): AccountState | null {
  switch (event.type) {
    case 'AccountCreated':
      return { id: event.data.accountId, name: event.data.name, createdAt: event.data.createdAt, keys: [] };
    case 'ApiKeyIssued':
      if (!state || state.keys.some((key) => key.keyId === event.data.keyId)) return state;
      return { ...state, keys: [...state.keys, { keyId: event.data.keyId, digest: event.data.digest, createdAt: event.data.createdAt, revokedAt: null }] };
    case 'ApiKeyRevoked':
      if (!state) return state;
      return {
        ...state,
        keys: state.keys.map((key) => (key.keyId === event.data.keyId && key.revokedAt === null ? { ...key, revokedAt: event.data.revokedAt } : key)),
      };
  }
}

export function isAccountEvent(type: string): boolean {
  return type === 'AccountCreated' || type === 'ApiKeyIssued' || type === 'ApiKeyRevoked';
}
