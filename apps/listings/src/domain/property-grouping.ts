/**
 * Property grouping: which adverts describe the same good (one flat listed by two agencies, or
 * re-listed after its first advert expired) and therefore belong to one property.
 *
 * ## The rule
 * A new advert joins the property of an already grouped advert ("member") when all hold:
 * - same transaction type, same property type, same commune (INSEE code; zipcode + normalised
 *   name only when ingestion could not resolve the INSEE code);
 * - surfaces within max(2 m², 3 % of the larger) when both are known; when either living surface
 *   is unknown, land surfaces within max(10 m², 5 % of the larger) must be known on both sides
 *   and match instead. When both sides know both, both must match. An advert with neither surface
 *   is never grouped: nothing else tells two parking spaces of one street apart;
 * - same number of rooms, same floor and same energy rating letter (DPE) when both sides know
 *   them. Floor and DPE are facts of the good that every publisher copies from the same
 *   documents, and they are what tells apart similar flats of one district when an advert has
 *   no coordinates (about one in five), where the distance rule cannot help;
 * - prices within 10 % of the larger (publishers disagree on fees, and prices drift);
 * - at most 300 m apart when both have coordinates (crawled coordinates are often street- or
 *   district-level, hence not tighter);
 * - the member is not a live advert of the same publisher on the same site: one publisher
 *   listing two similar live adverts is selling two lots (new-build programmes), whereas a
 *   publisher re-listing after its advert expired is the same good;
 * - an expired member is considered for 365 days after its expiry, then it stops attracting
 *   re-listings.
 * Among several matching properties the closest member wins (sum of relative surface and price
 * gaps plus distance / 300 m), ties broken by the smaller property id, so the choice does not
 * depend on insertion order.
 *
 * ## Stable property ids
 * The assignment is recorded as an event, `AdvertAssignedToProperty.v1`, appended to the advert's
 * own stream right after its publication, and projections read the property id from it. The
 * alternative, recomputing groups as a pure function of the ordered history, was rejected:
 * any change of a threshold, of the tie-break, or of the replay order (several streams merged)
 * would silently move adverts between properties on a rebuild, breaking `/properties/<uuid>`
 * links, saved matches and already sent webhooks. Recorded decisions replay identically, and a
 * rule change applies only to adverts ingested after it. The id of a new property is the v5 UUID
 * of its first advert's id, so retrying an ingestion after a crash re-derives the same id.
 *
 * Consequences for wiring: matching must be serialised per bucket (one consumer, or snapshots
 * partitioned by `bucketKeyOf`), otherwise two adverts of one good ingested at the same instant
 * may found two properties (a duplicate, never a wrong merge). An advert keeps its property when
 * its attributes change later; `track` re-indexes it under its new attributes for future matches.
 *
 * ## Index
 * `PropertyMatcher` keeps grouped adverts in buckets keyed by (transactionType, propertyType,
 * commune), and inside a bucket in ascending order of surface (and of land surface), so a match
 * looks only at the members whose surface is within tolerance, found by binary search, instead of
 * scanning properties. Members are stored in columns (`MemberColumns`).
 */
import { greatCircleMetres } from '@immo/contracts';
import { internString, nameBasedUuid } from '@immo/runtime';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';
import { MemberColumns, SortedSlots } from './member-columns';

export const PROPERTY_ID_NAMESPACE = 'f6fa8427-1f1d-4acf-960c-7805c2521f8d';

export interface GroupingThresholds {
  surfaceAbsolute: number;
  surfaceRelative: number;
  landSurfaceAbsolute: number;
  landSurfaceRelative: number;
  priceRelative: number;
  maxDistanceMeters: number;
  expiredRetentionDays: number;
}

export const DEFAULT_GROUPING_THRESHOLDS: Readonly<GroupingThresholds> = Object.freeze({
  surfaceAbsolute: 2,
  surfaceRelative: 0.03,
  landSurfaceAbsolute: 10,
  landSurfaceRelative: 0.05,
  priceRelative: 0.1,
  maxDistanceMeters: 300,
  expiredRetentionDays: 365,
});

/** What grouping reads of an advert; an `AdvertState` fits as is. */
export type GroupableAdvert = Pick<
  AdvertState,
  | 'uuid'
  | 'site'
  | 'publisher'
  | 'transactionType'
  | 'propertyType'
  | 'commune'
  | 'surface'
  | 'landSurface'
  | 'room'
  | 'floor'
  | 'energy'
  | 'price'
  | 'location'
  | 'expired'
  | 'expiredAt'
  | 'lastCrawledAt'
>;

export function propertyIdFor(firstAdvertId: string): string {
  return nameBasedUuid(firstAdvertId, PROPERTY_ID_NAMESPACE);
}

/** Bucket of the candidate index; also the natural partition key for serialising matching. */
export function bucketKeyOf(a: Pick<GroupableAdvert, 'transactionType' | 'propertyType' | 'commune'>): string {
  return `${a.transactionType}|${a.propertyType}|${communeKeyOf(a.commune)}`;
}

function communeKeyOf(c: GroupableAdvert['commune']): string {
  if (c.insee) return c.insee;
  const name = (c.name ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return `${c.zipcode ?? ''}:${name}`;
}

/**
 * The pairwise rule on attributes (bucket, sizes, rooms, price, distance). The publisher and
 * expiry conditions depend on the member's lifecycle and live in `PropertyMatcher`.
 */
export function isSameGood(
  a: GroupableAdvert,
  b: GroupableAdvert,
  t: Readonly<GroupingThresholds> = DEFAULT_GROUPING_THRESHOLDS,
): boolean {
  if (bucketKeyOf(a) !== bucketKeyOf(b)) return false;
  return matchScore(a, b, t) !== null;
}

/** How close `b`'s attributes are to `a`'s (lower is closer), null when they do not match. */
export function matchScore(a: GroupableAdvert, b: GroupableAdvert, t: Readonly<GroupingThresholds> = DEFAULT_GROUPING_THRESHOLDS): number | null {
  return attributesMatch(a, attributesOf(b, new MemberAttributes()), t);
}

/** A member's attributes as the index reads them: NaN for a number the advert does not give. */
class MemberAttributes {
  surface = Number.NaN;
  landSurface = Number.NaN;
  room = Number.NaN;
  floor = Number.NaN;
  price = Number.NaN;
  lat = Number.NaN;
  lon = Number.NaN;
  energyCategory: string | null = null;
}

const known = (value: number): boolean => !Number.isNaN(value);
const orNaN = (value: number | null | undefined): number => value ?? Number.NaN;

function attributesOf(advert: GroupableAdvert, into: MemberAttributes): MemberAttributes {
  into.surface = orNaN(advert.surface);
  into.landSurface = orNaN(advert.landSurface);
  into.room = orNaN(advert.room);
  into.floor = orNaN(advert.floor);
  into.price = advert.price;
  into.lat = orNaN(advert.location?.lat);
  into.lon = orNaN(advert.location?.lon);
  into.energyCategory = advert.energy?.category ?? null;
  return into;
}

/** Closeness score when the attributes match (lower is closer), null otherwise. */
function attributesMatch(
  a: Pick<GroupableAdvert, 'surface' | 'landSurface' | 'room' | 'floor' | 'energy' | 'price' | 'location'>,
  b: MemberAttributes,
  t: Readonly<GroupingThresholds>,
): number | null {
  let score = 0;
  const bothSurfaces = a.surface !== null && known(b.surface);
  const bothLand = a.landSurface !== null && known(b.landSurface);
  if (!bothSurfaces && !bothLand) return null;
  if (a.surface !== null && known(b.surface)) {
    const gap = Math.abs(a.surface - b.surface);
    const larger = Math.max(a.surface, b.surface);
    if (gap > Math.max(t.surfaceAbsolute, t.surfaceRelative * larger)) return null;
    score += gap / larger;
  }
  if (a.landSurface !== null && known(b.landSurface)) {
    const gap = Math.abs(a.landSurface - b.landSurface);
    const larger = Math.max(a.landSurface, b.landSurface);
    if (gap > Math.max(t.landSurfaceAbsolute, t.landSurfaceRelative * larger)) return null;
    if (!bothSurfaces) score += gap / larger;
  }
  if (a.room !== null && known(b.room) && a.room !== b.room) return null;
  if (a.floor !== null && known(b.floor) && a.floor !== b.floor) return null;
  if (a.energy !== null && b.energyCategory !== null && a.energy.category !== b.energyCategory) return null;

  const priceGap = Math.abs(a.price - b.price);
  const largerPrice = Math.max(a.price, b.price);
  if (priceGap > t.priceRelative * largerPrice) return null;
  score += priceGap / largerPrice;

  if (a.location !== null && known(b.lat) && known(b.lon)) {
    const d = distanceMeters(a.location.lat, a.location.lon, b.lat, b.lon);
    if (d > t.maxDistanceMeters) return null;
    score += d / t.maxDistanceMeters;
  }
  return score;
}

/** The product's one distance (@immo/contracts): great circle on the mean Earth radius. */
export function distanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return greatCircleMetres({ lat: lat1, lon: lon1 }, { lat: lat2, lon: lon2 });
}

// ---------------------------------------------------------------------------------------------
// index
// ---------------------------------------------------------------------------------------------

/**
 * A bucket's members in two orders: by living surface (those that give one) and by land surface
 * (those that give one), as slots of `MemberColumns`.
 */
interface Bucket {
  bySurface: number[];
  byLandSurface: number[];
}

/**
 * Tolerance ranges are widened by this factor on each side before the binary search, so that
 * rounding in the bounds never leaves out a member the exact rule (`attributesMatch`) accepts.
 */
const RANGE_SLACK = 1e-9;

export interface PropertyMatch {
  propertyId: string;
  /** The member whose property is joined; null when the advert founds a new property. */
  matchedAdvertId: string | null;
}

export class PropertyMatcher {
  private readonly buckets = new Map<string, Bucket>();
  private readonly columns = new MemberColumns();
  private readonly bySurface = new SortedSlots(this.columns.numbers.surface);
  private readonly byLandSurface = new SortedSlots(this.columns.numbers.landSurface);
  /** The candidate being compared, filled from the columns (one object, reused). */
  private readonly candidate = new MemberAttributes();
  private scanned = 0;
  // Running best of the current `match`, kept on the instance to avoid a closure per call.
  private best = -1;
  private bestScore = Infinity;

  constructor(private readonly thresholds: Readonly<GroupingThresholds> = DEFAULT_GROUPING_THRESHOLDS) {}

  /** Grouped adverts currently indexed. */
  get size(): number {
    return this.columns.size;
  }

  /** Members examined by the last `match` call; for metrics on bucket sizes. */
  get lastScanCount(): number {
    return this.scanned;
  }

  propertyOf(advertId: string): string | undefined {
    const slot = this.columns.slotOf(advertId);
    return slot === undefined ? undefined : this.columns.propertyId.get(slot);
  }

  /**
   * Finds the property an ungrouped advert belongs to, or the id of the property it founds.
   * Does not change the index: `track` the advert once its assignment is stored.
   */
  match(advert: GroupableAdvert): PropertyMatch {
    this.scanned = 0;
    this.best = -1;
    this.bestScore = Infinity;
    const bucket = this.buckets.get(bucketKeyOf(advert));
    if (bucket !== undefined) {
      const cutoff = expiryCutoff(advert.lastCrawledAt, this.thresholds.expiredRetentionDays);
      const t = this.thresholds;
      if (advert.surface !== null) {
        this.scanRange(this.bySurface, bucket.bySurface, toleranceRange(advert.surface, t.surfaceAbsolute, t.surfaceRelative), advert, cutoff, false);
        if (advert.landSurface !== null) {
          // Members with a surface were already examined through the surface order.
          this.scanRange(this.byLandSurface, bucket.byLandSurface, toleranceRange(advert.landSurface, t.landSurfaceAbsolute, t.landSurfaceRelative), advert, cutoff, true);
        }
      } else if (advert.landSurface !== null) {
        this.scanRange(this.byLandSurface, bucket.byLandSurface, toleranceRange(advert.landSurface, t.landSurfaceAbsolute, t.landSurfaceRelative), advert, cutoff, false);
      }
    }
    const found = this.best;
    this.best = -1;
    if (found < 0) return { propertyId: propertyIdFor(advert.uuid), matchedAdvertId: null };
    return { propertyId: this.columns.propertyId.get(found), matchedAdvertId: this.columns.advertId.get(found) };
  }

  /**
   * Indexes (or re-indexes) an advert under its current attributes. Call it with every new state
   * of a grouped advert (price, surface, expiry...) and when rebuilding the index at start-up.
   * Adverts without a property are ignored. An advert keeps its slot: its columns are
   * overwritten, and it moves in its bucket's orders only when a surface or the bucket changed.
   */
  track(advert: GroupableAdvert & { propertyId: string | null }): void {
    if (advert.propertyId === null) return;
    const columns = this.columns;
    const known = columns.slotOf(advert.uuid);
    const slot = known ?? columns.allocate(advert.uuid);
    const bucketKey = bucketKeyOf(advert);
    const surface = orNaN(advert.surface);
    const landSurface = orNaN(advert.landSurface);
    const stays =
      known !== undefined &&
      columns.bucketKey.get(slot) === bucketKey &&
      Object.is(columns.numbers.surface.get(slot), surface) &&
      Object.is(columns.numbers.landSurface.get(slot), landSurface);
    if (known !== undefined && !stays) this.unfile(slot);
    // Strings are interned (see `internString`): members live as long as their adverts, so ids
    // are shared with the store's skeletons, and sites, publishers and buckets are one string
    // each. The slot's current values lend those that did not change.
    const keep = (value: string, before: string | null | undefined) => (before === value ? before : internString(value));
    const energy = advert.energy?.category ?? null;
    columns.write(
      slot,
      {
        surface,
        landSurface,
        room: orNaN(advert.room),
        floor: orNaN(advert.floor),
        price: advert.price,
        lat: orNaN(advert.location?.lat),
        lon: orNaN(advert.location?.lon),
      },
      advert.expired,
      {
        advertId: keep(advert.uuid, columns.advertId.get(slot)),
        propertyId: keep(advert.propertyId, columns.propertyId.get(slot)),
        site: keep(advert.site, columns.site.get(slot)),
        publisherName: keep(advert.publisher.name, columns.publisherName.get(slot)),
        energyCategory: energy === null ? null : keep(energy, columns.energyCategory.get(slot)),
        expiredAt: advert.expiredAt,
        bucketKey: keep(bucketKey, columns.bucketKey.get(slot)),
      },
    );
    if (!stays) this.file(slot);
  }

  /** Forgets every advert (before a read-model rebuild replays them). */
  clear(): void {
    this.columns.clear();
    this.buckets.clear();
  }

  remove(advertId: string): void {
    const slot = this.columns.slotOf(advertId);
    if (slot === undefined) return;
    this.unfile(slot);
    this.columns.release(advertId);
  }

  /** Files a slot in its bucket's orders, by its current column values. */
  private file(slot: number): void {
    const key = this.columns.bucketKey.get(slot);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { bySurface: [], byLandSurface: [] };
      this.buckets.set(key, bucket);
    }
    const surface = this.columns.numbers.surface.get(slot);
    const landSurface = this.columns.numbers.landSurface.get(slot);
    if (known(surface)) this.bySurface.insert(bucket.bySurface, slot, surface);
    if (known(landSurface)) this.byLandSurface.insert(bucket.byLandSurface, slot, landSurface);
  }

  /** Takes a slot out of its bucket's orders, by its current column values (before they change). */
  private unfile(slot: number): void {
    const key = this.columns.bucketKey.get(slot);
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return;
    const surface = this.columns.numbers.surface.get(slot);
    const landSurface = this.columns.numbers.landSurface.get(slot);
    if (known(surface)) this.bySurface.remove(bucket.bySurface, slot, surface);
    if (known(landSurface)) this.byLandSurface.remove(bucket.byLandSurface, slot, landSurface);
    if (bucket.bySurface.length === 0 && bucket.byLandSurface.length === 0) this.buckets.delete(key);
  }

  private scanRange(order: SortedSlots, list: readonly number[], [lo, hi]: [number, number], advert: GroupableAdvert, cutoff: string, onlyWithoutSurface: boolean): void {
    const columns = this.columns;
    const values = order.values;
    for (let i = order.lowerBound(list, lo); i < list.length; i++) {
      const slot = list[i] as number;
      if (values.get(slot) > hi) break;
      if (onlyWithoutSurface && known(columns.numbers.surface.get(slot))) continue;
      this.scanned++;
      if (columns.advertId.get(slot) === advert.uuid) continue;
      const expired = columns.isExpired(slot);
      if (!expired && columns.site.get(slot) === advert.site && columns.publisherName.get(slot) === advert.publisher.name) continue;
      const expiredAt = columns.expiredAt.get(slot);
      if (expired && expiredAt !== null && expiredAt < cutoff) continue;
      const score = attributesMatch(advert, this.fillCandidate(slot), this.thresholds);
      if (score === null) continue;
      const best = this.best;
      if (best < 0 || score < this.bestScore || (score === this.bestScore && columns.propertyId.get(slot) < columns.propertyId.get(best))) {
        this.best = slot;
        this.bestScore = score;
      }
    }
  }

  private fillCandidate(slot: number): MemberAttributes {
    const { numbers, energyCategory } = this.columns;
    const candidate = this.candidate;
    candidate.surface = numbers.surface.get(slot);
    candidate.landSurface = numbers.landSurface.get(slot);
    candidate.room = numbers.room.get(slot);
    candidate.floor = numbers.floor.get(slot);
    candidate.price = numbers.price.get(slot);
    candidate.lat = numbers.lat.get(slot);
    candidate.lon = numbers.lon.get(slot);
    candidate.energyCategory = energyCategory.get(slot);
    return candidate;
  }
}

/**
 * The assignment to record for an advert that has none yet: `AdvertAssignedToProperty` at its
 * last crawl time. Empty once assigned, so replays and retries do not reassign.
 */
export function decideAssignment(state: AdvertState, matcher: PropertyMatcher): AdvertDomainEvent[] {
  if (state.propertyId !== null) return [];
  const match = matcher.match(state);
  return [
    {
      type: ADVERT_EVENT_TYPES.assignedToProperty,
      data: {
        advertId: state.uuid,
        propertyId: match.propertyId,
        matchedAdvertId: match.matchedAdvertId,
        at: state.lastCrawledAt,
      },
    },
  ];
}

function expiryCutoff(at: string, days: number): string {
  // Same canonical format as stored timestamps, so members compare as strings.
  return new Date(Date.parse(at) - days * 86_400_000).toISOString().slice(0, 19) + '+00:00';
}

/** Values within tolerance of `value`, whichever side is larger (see `attributesMatch`), widened by `RANGE_SLACK`. */
function toleranceRange(value: number, absolute: number, relative: number): [number, number] {
  const lo = Math.min(value - absolute, value * (1 - relative));
  const hi = Math.max(value + absolute, value / (1 - relative));
  return [lo - Math.abs(lo) * RANGE_SLACK, hi + Math.abs(hi) * RANGE_SLACK];
}
