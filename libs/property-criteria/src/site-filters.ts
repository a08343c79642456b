/**
 * Source sites (`Advert.site`): `includedSites` keeps a property when at least one of its adverts
 * comes from one of them; `excludedSites` drops it when any advert does, since the caller then
 * already has the property from that site. Site categories (`Advert.siteCategory`) follow the
 * same rules.
 */
import type { PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from './criteria';

export function matchesSites(
  criteria: Pick<PropertyCriteria, 'includedSites' | 'excludedSites' | 'includedSiteCategories' | 'excludedSiteCategories'>,
  doc: PropertyDocument,
): boolean {
  // Most criteria name no site: answered without listing the adverts' sites.
  if (criteria.includedSites.length + criteria.excludedSites.length + criteria.includedSiteCategories.length + criteria.excludedSiteCategories.length === 0) return true;
  return (
    matchesIncludedExcluded(doc.adverts.map((advert) => advert.site), criteria.includedSites, criteria.excludedSites) &&
    matchesIncludedExcluded(doc.adverts.map((advert) => advert.siteCategory), criteria.includedSiteCategories, criteria.excludedSiteCategories)
  );
}

function matchesIncludedExcluded(values: string[], included: string[], excluded: string[]): boolean {
  if (included.length > 0 && !values.some((value) => included.includes(value))) return false;
  return !values.some((value) => excluded.includes(value));
}
