/**
 * Saved searches are event-sourced, one stream per search (`search-<id>`). Events carry what the
 * record shows, relations already resolved, so replaying them never asks another service.
 */
import type { SearchRelations } from '@immo/contracts';
import type { SearchSpec } from './search-body';

export const SEARCH_STREAM_PREFIX = 'search-';
export const searchStream = (searchId: string) => `${SEARCH_STREAM_PREFIX}${searchId}`;

export type SearchEvent =
  | {
      type: 'SearchCreated';
      data: {
        searchId: string;
        accountId: string;
        spec: SearchSpec;
        relations: SearchRelations;
        token: string;
        platformOrigin: string | null;
        createdAt: string;
        /** The creation's `Idempotency-Key` and a digest of the request it came with (absent without a key). */
        idempotency?: SearchIdempotency;
      };
    }
  | { type: 'SearchUpdated'; data: { searchId: string; spec: SearchSpec; relations: SearchRelations; platformOrigin: string | null; updatedAt: string } }
  | { type: 'SearchNotificationsDisabled'; data: { searchId: string; reason: string | null; comment: string | null; disabledAt: string } }
  | { type: 'SearchDeleted'; data: { searchId: string; deletedAt: string } };

export interface SearchIdempotency {
  key: string;
  requestDigest: string;
}

export interface SearchState {
  id: string;
  accountId: string;
  spec: SearchSpec;
  relations: SearchRelations;
  token: string;
  platformOrigin: string | null;
  createdAt: string;
  updatedAt: string;
  lastAlertAt: string | null;
  deleted: boolean;
  idempotency: SearchIdempotency | null;
}

export function evolveSearch(state: SearchState | null, event: SearchEvent): SearchState | null {
  switch (event.type) {
    case 'SearchCreated': {
      const { searchId, accountId, spec, relations, token, platformOrigin, createdAt } = event.data;
      const idempotency = event.data.idempotency ?? null;
      return { id: searchId, accountId, spec, relations, token, platformOrigin, createdAt, updatedAt: createdAt, lastAlertAt: null, deleted: false, idempotency };
    }
    case 'SearchUpdated':
      if (!state) return state;
      return {
        ...state,
        spec: event.data.spec,
        relations: event.data.relations,
        // A client that does not send the header keeps the origin it had.
        platformOrigin: event.data.platformOrigin ?? state.platformOrigin,
        updatedAt: event.data.updatedAt,
      };
    case 'SearchNotificationsDisabled':
      if (!state) return state;
      return { ...state, spec: { ...state.spec, notificationEnabled: false }, updatedAt: event.data.disabledAt };
    case 'SearchDeleted':
      return state ? { ...state, deleted: true, updatedAt: event.data.deletedAt } : state;
  }
}

export function isSearchEvent(type: string): boolean {
  return type === 'SearchCreated' || type === 'SearchUpdated' || type === 'SearchNotificationsDisabled' || type === 'SearchDeleted';
}
