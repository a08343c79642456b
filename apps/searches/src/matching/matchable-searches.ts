/**
 * The saved searches as the matcher sees them: every live search in a SearchMatchIndex, loaded
 * from the read model at start and following it as the projection commits (creation, update,
 * notifications turned off, deletion). Each entry remembers the read-model revision it came
 * from, so a load racing with a commit never puts back an older version of a search, nor one
 * deleted meanwhile.
 */
import { Logger } from '@nestjs/common';
import { parsePropertyCriteria, type PropertyCriteria } from '@immo/property-criteria';
import type { PropertyDocument } from '@immo/contracts';
import type { SearchDoc } from '../projection/read-models';
import { criteriaQueryOf } from '../searches/search-criteria-query';
import type { AlertingSearch } from './alert-decisions';
import { SearchMatchIndex } from './search-match-index';

interface Entry {
  search: AlertingSearch;
  revision: number;
}

export function alertingSearchOf(doc: SearchDoc): AlertingSearch {
  const { spec } = doc.state;
  return {
    id: doc._id,
    accountId: doc.accountId,
    createdAtMs: Date.parse(doc.state.createdAt),
    notificationEnabled: spec.notificationEnabled,
    endpointRecipient: spec.endpointRecipient,
    eventEndpoint: spec.eventEndpoint,
    subscribedEvents: spec.subscribedEvents,
    hidePropertyContact: spec.hidePropertyContact === true,
    title: spec.title,
    notificationRecipient: spec.notificationRecipient,
    unsubscribeToken: doc.state.token,
  };
}

export class MatchableSearches {
  private readonly logger = new Logger('MatchableSearches');
  private readonly index = new SearchMatchIndex<Entry>();
  /** Searches deleted, by the position of their deletion: an older copy read meanwhile stays out. */
  private readonly deletedAt = new Map<string, number>();

  get size(): number {
    return this.index.size;
  }

  /** A search as the read model holds it now (or null once deleted), committed at `position`. */
  apply(searchId: string, doc: SearchDoc | null, position: number): void {
    if (doc === null) {
      const known = this.index.value(searchId);
      if (known !== undefined && known.revision > position) return;
      this.index.remove(searchId);
      this.deletedAt.set(searchId, Math.max(position, this.deletedAt.get(searchId) ?? -1));
      return;
    }
    if ((this.deletedAt.get(searchId) ?? -1) >= doc.revision) return;
    const known = this.index.value(searchId);
    if (known !== undefined && known.revision > doc.revision) return;
    const criteria = criteriaOf(doc);
    if (criteria === null) {
      this.logger.error(`search ${searchId} has criteria the criteria library no longer accepts; it is not matched`);
      this.index.remove(searchId);
      // An older copy read meanwhile must not come back in its place.
      this.deletedAt.set(searchId, Math.max(doc.revision, this.deletedAt.get(searchId) ?? -1));
      return;
    }
    this.index.upsert(searchId, criteria, { search: alertingSearchOf(doc), revision: doc.revision });
  }

  /** The searches whose criteria the document meets (the criteria library's reference predicate). */
  matching(document: PropertyDocument): AlertingSearch[] {
    return this.index.matching(document).map((entry) => entry.value.search);
  }
}

function criteriaOf(doc: SearchDoc): PropertyCriteria | null {
  const parsed = parsePropertyCriteria(criteriaQueryOf(doc.state.spec), { endpoint: 'properties' });
  return parsed.ok ? parsed.criteria : null;
}
