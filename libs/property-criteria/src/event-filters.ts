/**
 * Price and surface event filters: a property matches when at least one event of the given kind,
 * on any of its adverts, satisfies every given bound at once (variation and creation date), so
 * "a drop of 10 % or more last week" is not met by an old drop and a recent rise.
 */
import type { AdvertEvent, PropertyDocument } from '@immo/contracts';
import { isOpenRange, isOpenTimeRange, withinRange, withinTimeRange } from './bounds';
import type { NumberRange, PropertyCriteria, TimeRange } from './criteria';

interface EventFilter {
  fieldName: 'price' | 'surface';
  variation: NumberRange;
  createdAt: TimeRange;
}

export function eventFiltersOf(criteria: PropertyCriteria): EventFilter[] {
  return [
    { fieldName: 'price', variation: criteria.eventPriceVariation, createdAt: criteria.eventPriceVariationCreatedAt },
    { fieldName: 'surface', variation: criteria.eventSurfaceVariation, createdAt: criteria.eventSurfaceVariationCreatedAt },
  ];
}

export function matchesEvents(criteria: PropertyCriteria, doc: PropertyDocument): boolean {
  // Most criteria have no event filter: answered without building the filters.
  if (
    isOpenRange(criteria.eventPriceVariation) &&
    isOpenTimeRange(criteria.eventPriceVariationCreatedAt) &&
    isOpenRange(criteria.eventSurfaceVariation) &&
    isOpenTimeRange(criteria.eventSurfaceVariationCreatedAt)
  ) {
    return true;
  }
  return eventFiltersOf(criteria).every((filter) => matchesEventFilter(filter, doc));
}

function matchesEventFilter(filter: EventFilter, doc: PropertyDocument): boolean {
  if (isOpenRange(filter.variation) && isOpenTimeRange(filter.createdAt)) return true;
  return doc.adverts.some((advert) => advert.events.some((event) => eventSatisfies(filter, event)));
}

function eventSatisfies(filter: EventFilter, event: AdvertEvent): boolean {
  return (
    event.fieldName === filter.fieldName &&
    withinRange(event.percentVariation, filter.variation) &&
    withinTimeRange(event.createdAt, filter.createdAt)
  );
}
