/**
 * The reference predicate: does a property document meet the criteria?
 *
 * Written for clarity, one filter family per module, so that a faster search index can be
 * property-tested against it and the alert matcher can apply it to one property at a time. Every
 * filter family must hold; each one treats its empty criteria as "no filter".
 */
import type { PropertyDocument } from '@immo/contracts';
import { matchesAdvertLevel } from './advert-filters';
import type { PropertyCriteria } from './criteria';
import { matchesEvents } from './event-filters';
import { matchesExpressions, searchableTexts } from './expressions';
import { matchesGeo } from './geo-filters';
import { matchesLiveAdverts } from './live-advert-filters';
import { matchesPlaces } from './place-filters';
import { matchesPropertyLevel } from './property-filters';
import { matchesSites } from './site-filters';

export function matches(criteria: PropertyCriteria, doc: PropertyDocument): boolean {
  return (
    matchesPropertyLevel(criteria, doc) &&
    matchesAdvertLevel(criteria, doc) &&
    matchesLiveAdverts(criteria, doc) &&
    matchesSites(criteria, doc) &&
    matchesEvents(criteria, doc) &&
    matchesPlaces(criteria, doc) &&
    matchesGeo(criteria, doc) &&
    // Last, and only when asked: tokenizing the texts is the dearest check.
    (criteria.expressions.length === 0 || matchesExpressions(criteria.expressions, searchableTexts(doc)))
  );
}
