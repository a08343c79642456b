import { isDeepStrictEqual } from 'node:util';
import type { DocumentCollection } from '@immo/document-store';
import type { AdvertState, PropertyMatcher } from '../domain';
import { ExpirySchedule } from './expiry-schedule';
import type { AdvertFacts, AdvertFactsRecord } from './read-models';

/** Facts read per batch at start: the whole collection is never held at once. */
const LOAD_BATCH = 5_000;

/** The grouping attributes and expiry date of an advert state. */
export function factsOf(state: AdvertState): AdvertFacts {
  return {
    uuid: state.uuid,
    site: state.site,
    publisher: state.publisher,
    transactionType: state.transactionType,
    propertyType: state.propertyType,
    commune: state.commune,
    surface: state.surface,
    landSurface: state.landSurface,
    room: state.room,
    floor: state.floor,
    energy: state.energy,
    price: state.price,
    location: state.location,
    expired: state.expired,
    expiredAt: state.expiredAt,
    lastCrawledAt: state.lastCrawledAt,
    propertyId: state.propertyId,
    expiresAt: state.expiresAt,
  };
}

/**
 * Whether two facts are the same for grouping and expiry. `lastCrawledAt` is left out: grouping
 * reads it of the advert being matched, never of the members it is matched against.
 */
export function sameFacts(a: AdvertFacts, b: AdvertFacts): boolean {
  const { lastCrawledAt: _a, ...left } = a;
  const { lastCrawledAt: _b, ...right } = b;
  return isDeepStrictEqual(left, right);
}

/**
 * What the service needs of every advert at once, kept on the heap: the grouping index (which
 * ingestion matches new adverts against) and the adverts whose announced expiry date is set.
 * Fed by the advert-states projection and loaded at start from the advert facts read model.
 */
export class AdvertDirectory {
  /** Live adverts with an announced expiry (most of them), by when it falls. */
  private readonly expiring = new ExpirySchedule<AdvertFacts>();

  constructor(readonly matcher: PropertyMatcher) {}

  get size(): number {
    return this.matcher.size;
  }

  track(facts: AdvertFacts): void {
    this.matcher.track(facts);
    if (!facts.expired && facts.expiresAt !== null) this.expiring.set(facts.uuid, facts, Date.parse(facts.expiresAt));
    else this.expiring.delete(facts.uuid);
  }

  /** Live adverts whose announced expiry date has passed. */
  dueForExpiry(now: Date): AdvertFacts[] {
    return this.expiring.due(now.getTime());
  }

  async load(collection: DocumentCollection<AdvertFactsRecord>): Promise<void> {
    for await (const batch of collection.scan(LOAD_BATCH)) for (const record of batch) this.track(record.facts);
  }

  clear(): void {
    this.matcher.clear();
    this.expiring.clear();
  }
}
