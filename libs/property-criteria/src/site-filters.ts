/**
 * Source sites (`Advert.site`): `includedSites` keeps a property when at least one of its adverts
 * comes from one of them; `excludedSites` drops it when any advert does, since the caller then
 * already has the property from that site.
 */
import type { PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from './criteria';

export function matchesSites(criteria: Pick<PropertyCriteria, 'includedSites' | 'excludedSites'>, doc: PropertyDocument): boolean {
  const sites = doc.adverts.map((advert) => advert.site);
  if (criteria.includedSites.length > 0 && !sites.some((site) => criteria.includedSites.includes(site))) return false;
  if (sites.some((site) => criteria.excludedSites.includes(site))) return false;
  return true;
}
