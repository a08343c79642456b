/**
 * Reads of what the matcher stored: a search's matches (`GET /searches/{id}/matches`), an
 * account's (`GET /matches`) and when each search was last alerted (shown as `lastAlertAt` on the
 * search record).
 */
import { matchIri, parisTimestamp, type MatchesPage, type MatchListItem } from '@immo/contracts';
import type { Filter } from '@immo/document-store';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import { LAST_ALERTS_COLLECTION, MATCHES_COLLECTION, type LastAlertDoc, type MatchDoc } from '../projection/read-models';

export const MATCHES_PER_PAGE = 30;

export class AlertRecords {
  private readonly matches: DocumentCollection<MatchDoc>;
  private readonly lastAlerts: DocumentCollection<LastAlertDoc>;

  constructor(store: DocumentStore) {
    this.matches = store.collection<MatchDoc>(MATCHES_COLLECTION);
    this.lastAlerts = store.collection<LastAlertDoc>(LAST_ALERTS_COLLECTION);
  }

  async matchesOf(searchId: string, page: number): Promise<MatchesPage> {
    const [docs, totalItems] = await Promise.all([
      this.matches.find({ searchId }, { sort: { createdAt: -1, _id: 1 }, skip: (page - 1) * MATCHES_PER_PAGE, limit: MATCHES_PER_PAGE }),
      this.matches.count({ searchId }),
    ]);
    return { items: docs.map(matchListItem), totalItems, page, itemsPerPage: MATCHES_PER_PAGE };
  }

  /**
   * An account's matches among `searchIds` (its live searches, or those of them asked for), of
   * `propertyIds` when given, by creation time then id. The account comes first in every filter:
   * the indexes on the account, the search or the property keep this to the account's own matches.
   */
  async matchesOfAccount(
    accountId: string,
    query: { searchIds: readonly string[]; propertyIds?: readonly string[]; order: 'asc' | 'desc'; page: number; itemsPerPage: number },
  ): Promise<MatchesPage> {
    const { page, itemsPerPage } = query;
    if (query.searchIds.length === 0) return { items: [], totalItems: 0, page, itemsPerPage };
    const filter: Filter = { accountId, searchId: { $in: [...query.searchIds] } };
    if (query.propertyIds) filter['propertyId'] = { $in: [...query.propertyIds] };
    const direction = query.order === 'asc' ? 1 : -1;
    const [docs, totalItems] = await Promise.all([
      this.matches.find(filter, { sort: { createdAt: direction, _id: direction }, skip: (page - 1) * itemsPerPage, limit: itemsPerPage }),
      this.matches.count(filter),
    ]);
    return { items: docs.map(matchListItem), totalItems, page, itemsPerPage };
  }

  /** One match of the account and the search it belongs to, or null (another account's is null too). */
  async matchOfAccount(accountId: string, matchId: string): Promise<{ searchId: string; match: MatchListItem } | null> {
    const doc = await this.matches.findById(matchId);
    return doc && doc.accountId === accountId ? { searchId: doc.searchId, match: matchListItem(doc) } : null;
  }

  /** `lastAlertAt` of each of these searches that was ever alerted. */
  async lastAlertAt(searchIds: readonly string[]): Promise<Map<string, string>> {
    if (searchIds.length === 0) return new Map();
    const docs = await this.lastAlerts.find({ _id: { $in: [...searchIds] } });
    return new Map(docs.map((doc) => [doc._id, doc.lastAlertAt]));
  }
}

function matchListItem(doc: MatchDoc): MatchListItem {
  return {
    '@context': '/contexts/Match',
    '@id': matchIri(doc._id),
    '@type': 'Match',
    id: doc._id,
    property: `/documents/properties/${doc.propertyId}`,
    propertyId: doc.propertyId,
    search: `/searches/${doc.searchId}`,
    createdAt: parisTimestamp(doc.createdAt),
    updatedAt: parisTimestamp(doc.updatedAt),
  };
}
