import { isDeepStrictEqual } from 'node:util';
import { internString, ShardedMap } from '@immo/contracts';
import type { DocumentCollection } from '@immo/document-store';
import type { AdvertState, PropertyMatcher } from '../domain';
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
  /**
   * Announced expiry dates (epoch ms) of live adverts, by advert id. The date only: the sweep
   * reads each due advert's state when it expires it. Keeping the whole facts here was 16 objects
   * per advert for V8 to mark on every full collection (about 400,000 at 200,000 properties), and
   * each sweep parsed every date again. Sharded: most live adverts announce an expiry (see `ShardedMap`).
   */
  private readonly expiring = new ShardedMap<string, number>();

  constructor(readonly matcher: PropertyMatcher) {}

  get size(): number {
    return this.matcher.size;
  }

  track(facts: AdvertFacts): void {
    this.matcher.track(facts);
    // The id is interned: the matcher and the store's skeletons hold the same string.
    if (!facts.expired && facts.expiresAt !== null) this.expiring.set(internString(facts.uuid), Date.parse(facts.expiresAt));
    else this.expiring.delete(facts.uuid);
  }

  /** Ids of the live adverts whose announced expiry date has passed. */
  dueForExpiry(now: Date): string[] {
    const time = now.getTime();
    const due: string[] = [];
    for (const [advertId, expiresAt] of this.expiring) if (expiresAt <= time) due.push(advertId);
    return due;
  }

  async load(collection: DocumentCollection<AdvertFactsRecord>): Promise<void> {
    for await (const batch of collection.scan(LOAD_BATCH)) for (const record of batch) this.track(record.facts);
  }

  clear(): void {
    this.matcher.clear();
    this.expiring.clear();
  }
}
