import { parisTimestamp, parisTimestampOrNull } from '../time/paris-time';
import type { Advert, AdvertEvent, PropertyDocument } from './property-document';

/**
 * The document as clients see it: every time in Paris time with its offset (`parisTimestamp`).
 * Read models keep UTC, whose fixed-width strings the projections and filters compare; this view
 * is made where a document leaves the system (listings' replies, webhook payloads). Fields keep
 * their places, and applying it twice changes nothing.
 */
export function propertyDocumentInParisTime(document: PropertyDocument): PropertyDocument {
  return {
    ...document,
    adverts: document.adverts.map(advertInParisTime),
    expiredAt: parisTimestampOrNull(document.expiredAt),
    createdAt: parisTimestamp(document.createdAt),
    updatedAt: parisTimestamp(document.updatedAt),
    lastCrawledAt: parisTimestamp(document.lastCrawledAt),
  };
}

function advertInParisTime(advert: Advert): Advert {
  return {
    ...advert,
    events: advert.events.map(eventInParisTime),
    createdAt: parisTimestamp(advert.createdAt),
    updatedAt: parisTimestamp(advert.updatedAt),
    lastCrawledAt: parisTimestamp(advert.lastCrawledAt),
    expiredAt: parisTimestampOrNull(advert.expiredAt),
  };
}

const eventInParisTime = (event: AdvertEvent): AdvertEvent => ({ ...event, createdAt: parisTimestamp(event.createdAt) });
