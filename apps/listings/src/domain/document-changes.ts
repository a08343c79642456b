/**
 * What one advert change did to its property's document, as far as subscribers and the search
 * index are concerned.
 */
import { isDeepStrictEqual } from 'node:util';
import type { PropertyDocument } from '@immo/contracts';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent } from './advert.events';

/** Top-level document fields compared to tell subscribers what changed. */
const WATCHED_FIELDS: (keyof PropertyDocument)[] = [
  'title', 'description', 'propertyType', 'transactionType', 'publisherTypes', 'price', 'pricePerMeter', 'surface',
  'landSurface', 'room', 'bedroom', 'floor', 'elevator', 'furnished', 'expired', 'expiredAt', 'locations', 'pictures', 'city',
];

/** Same value, compared structurally: JSON text built for both sides cost three times as much. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a, b);
}

/** The watched fields that differ between two documents of one property, plus `adverts` when one joined or left. */
export function changedFields(before: PropertyDocument, after: PropertyDocument): string[] {
  const changed = WATCHED_FIELDS.filter((field) => !sameValue(before[field], after[field])).map(String);
  if (before.adverts.length !== after.adverts.length) changed.push('adverts');
  return changed;
}

/**
 * True when an advert event moved its property's document in its crawl fields only
 * (`lastCrawledAt`, `lastCrawledAdvert`, the adverts' `lastCrawledAt`): most of what crawlers send
 * once a catalogue is known. Such a change is announced to nobody and leaves the property's search
 * row as it was, so neither needs to be derived again.
 *
 * A recrawl moves nothing of its advert but `lastCrawledAt`. Through the document it can still
 * move what is chosen by how recently each advert was crawled: the lead advert (every field taken
 * from it, and the city), the location taken from another advert, the order of the pictures: all
 * watched fields, so comparing those settles it. The rest of what the search row and subscribers
 * read (creation and update instants, expiry, publishers, the adverts' contents and their order)
 * does not depend on crawl times. (The stations can follow a new lead while every watched field
 * stays: the stored document has them, and neither the row nor any announcement reads them.)
 */
export function movedOnlyByCrawl(event: AdvertDomainEvent, before: PropertyDocument | null, after: PropertyDocument): boolean {
  return event.type === ADVERT_EVENT_TYPES.recrawled && before !== null && changedFields(before, after).length === 0;
}
