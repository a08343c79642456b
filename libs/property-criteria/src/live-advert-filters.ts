/**
 * `advertPriceMin`/`advertPriceMax`: the property has an advert that has not expired and is priced
 * within the bounds. The original service words it as a filter on "any non expired adverts
 * prices", by itself: the advert priced in range need not be the one that meets the advert-level
 * criteria (advert-filters.ts), which may well ask for expired adverts (`fromExpiredAt`).
 */
import type { Advert, PropertyDocument } from '@immo/contracts';
import { isOpenRange, withinRange } from './bounds';
import type { PropertyCriteria } from './criteria';

/** The advert's price while it is live; null once it has expired, so that no bound accepts it. */
export function liveAdvertPrice(advert: Advert): number | null {
  return advert.expired ? null : advert.price;
}

export function matchesLiveAdverts(criteria: PropertyCriteria, doc: PropertyDocument): boolean {
  const range = criteria.advertPrice;
  if (isOpenRange(range)) return true;
  return doc.adverts.some((advert) => withinRange(liveAdvertPrice(advert), range));
}
