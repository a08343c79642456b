/**
 * Filters read on the property document as a whole (its lead advert's figures, its dates, its
 * position and the union of its adverts' publisher types).
 */
import type { PropertyDocument } from '@immo/contracts';
import { withinRange, withinTimeRange } from './bounds';
import { hasCoherentPrice } from './coherent-price';
import { creationTimeMs } from './creation-time';
import type { PropertyCriteria, PropertyRangeKey } from './criteria';

/** The document value each property-level range bounds; `budget` is the asking price. */
export const PROPERTY_RANGE_VALUES: Readonly<Record<PropertyRangeKey, (doc: PropertyDocument) => number | null>> = {
  budget: (doc) => doc.price,
  pricePerMeter: (doc) => doc.pricePerMeter,
  surface: (doc) => doc.surface,
  landSurface: (doc) => doc.landSurface,
  room: (doc) => doc.room,
  bedroom: (doc) => doc.bedroom,
};

const PROPERTY_RANGE_KEYS = Object.keys(PROPERTY_RANGE_VALUES) as PropertyRangeKey[];

export function matchesPropertyLevel(criteria: PropertyCriteria, doc: PropertyDocument): boolean {
  if (criteria.transactionType !== undefined && doc.transactionType !== criteria.transactionType) return false;
  if (criteria.propertyTypes.length > 0 && !(criteria.propertyTypes as number[]).includes(doc.propertyType)) return false;
  if (criteria.publisherTypes.length > 0 && !doc.adverts.some((advert) => (criteria.publisherTypes as number[]).includes(advert.publisher.type))) {
    return false;
  }
  // A loop rather than `every`: the matcher runs this for every candidate search, allocation-free.
  for (const key of PROPERTY_RANGE_KEYS) if (!withinRange(PROPERTY_RANGE_VALUES[key](doc), criteria[key])) return false;
  // A boolean filter is answered by the document's own value; an unknown (null) value answers neither.
  if (criteria.furnished !== undefined && doc.furnished !== criteria.furnished) return false;
  if (criteria.expired !== undefined && doc.expired !== criteria.expired) return false;
  if (criteria.withLocation !== undefined && (doc.locations !== null) !== criteria.withLocation) return false;
  const { from, to } = criteria.date;
  // Parsing the creation date is the dearest check here: only when a bound asks for it.
  if ((from !== undefined || to !== undefined) && !withinRange(creationTimeMs(doc, criteria.sortMode), { min: from, max: to })) return false;
  if (!withinTimeRange(doc.updatedAt, criteria.updatedAt)) return false;
  if (criteria.withCoherentPrice && !hasCoherentPrice(doc)) return false;
  return true;
}
