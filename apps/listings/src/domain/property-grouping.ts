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
 * commune), and inside a bucket in logarithmic surface bins (5 % wide), so a match looks only at
 * the few bins the tolerance can reach instead of scanning properties.
 */
import { greatCircleMetres, internString, nameBasedUuid } from '@immo/contracts';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';

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
  return attributesMatch(a, memberOf(b, ''), t) !== null;
}

/** Closeness score when the attributes match (lower is closer), null otherwise. */
function attributesMatch(
  a: Pick<GroupableAdvert, 'surface' | 'landSurface' | 'room' | 'floor' | 'energy' | 'price' | 'location'>,
  b: Member,
  t: Readonly<GroupingThresholds>,
): number | null {
  let score = 0;
  const bothSurfaces = a.surface !== null && b.surface !== null;
  const bothLand = a.landSurface !== null && b.landSurface !== null;
  if (!bothSurfaces && !bothLand) return null;
  if (a.surface !== null && b.surface !== null) {
    const gap = Math.abs(a.surface - b.surface);
    const larger = Math.max(a.surface, b.surface);
    if (gap > Math.max(t.surfaceAbsolute, t.surfaceRelative * larger)) return null;
    score += gap / larger;
  }
  if (a.landSurface !== null && b.landSurface !== null) {
    const gap = Math.abs(a.landSurface - b.landSurface);
    const larger = Math.max(a.landSurface, b.landSurface);
    if (gap > Math.max(t.landSurfaceAbsolute, t.landSurfaceRelative * larger)) return null;
    if (!bothSurfaces) score += gap / larger;
  }
  if (a.room !== null && b.room !== null && a.room !== b.room) return null;
  if (a.floor !== null && b.floor !== null && a.floor !== b.floor) return null;
  if (a.energy !== null && b.energyCategory !== null && a.energy.category !== b.energyCategory) return null;

  const priceGap = Math.abs(a.price - b.price);
  const largerPrice = Math.max(a.price, b.price);
  if (priceGap > t.priceRelative * largerPrice) return null;
  score += priceGap / largerPrice;

  if (a.location !== null && b.lat !== null && b.lon !== null) {
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

/** Flat copy of what matching reads, so the index does not retain whole advert states. */
interface Member {
  advertId: string;
  propertyId: string;
  site: string;
  publisherName: string;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  floor: number | null;
  energyCategory: string | null;
  price: number;
  lat: number | null;
  lon: number | null;
  expired: boolean;
  expiredAt: string | null;
  bucketKey: string;
  surfaceBin: number | null;
  landBin: number | null;
}

interface Bucket {
  bySurface: Map<number, Member[]>;
  byLandSurface: Map<number, Member[]>;
}

const LOG_BIN = Math.log(1.05);

function binOf(value: number): number {
  return Math.floor(Math.log(value) / LOG_BIN);
}

export interface PropertyMatch {
  propertyId: string;
  /** The member whose property is joined; null when the advert founds a new property. */
  matchedAdvertId: string | null;
}

export class PropertyMatcher {
  private readonly buckets = new Map<string, Bucket>();
  private readonly members = new Map<string, Member>();
  private scanned = 0;
  // Running best of the current `match`, kept on the instance to avoid a closure per call.
  private best: Member | null = null;
  private bestScore = Infinity;

  constructor(private readonly thresholds: Readonly<GroupingThresholds> = DEFAULT_GROUPING_THRESHOLDS) {}

  /** Grouped adverts currently indexed. */
  get size(): number {
    return this.members.size;
  }

  /** Members examined by the last `match` call; for metrics on bucket sizes. */
  get lastScanCount(): number {
    return this.scanned;
  }

  propertyOf(advertId: string): string | undefined {
    return this.members.get(advertId)?.propertyId;
  }

  /**
   * Finds the property an ungrouped advert belongs to, or the id of the property it founds.
   * Does not change the index: `track` the advert once its assignment is stored.
   */
  match(advert: GroupableAdvert): PropertyMatch {
    this.scanned = 0;
    this.best = null;
    this.bestScore = Infinity;
    const bucket = this.buckets.get(bucketKeyOf(advert));
    if (bucket !== undefined) {
      const cutoff = expiryCutoff(advert.lastCrawledAt, this.thresholds.expiredRetentionDays);
      const t = this.thresholds;
      if (advert.surface !== null) {
        const [lo, hi] = toleranceBins(advert.surface, t.surfaceAbsolute, t.surfaceRelative);
        this.scanBins(bucket.bySurface, lo, hi, advert, cutoff, false);
        if (advert.landSurface !== null) {
          const [llo, lhi] = toleranceBins(advert.landSurface, t.landSurfaceAbsolute, t.landSurfaceRelative);
          // Members with a surface were already examined through their surface bin.
          this.scanBins(bucket.byLandSurface, llo, lhi, advert, cutoff, true);
        }
      } else if (advert.landSurface !== null) {
        const [llo, lhi] = toleranceBins(advert.landSurface, t.landSurfaceAbsolute, t.landSurfaceRelative);
        this.scanBins(bucket.byLandSurface, llo, lhi, advert, cutoff, false);
      }
    }
    const found = this.takeBest();
    if (found === null) return { propertyId: propertyIdFor(advert.uuid), matchedAdvertId: null };
    return { propertyId: found.propertyId, matchedAdvertId: found.advertId };
  }

  /**
   * Indexes (or re-indexes) an advert under its current attributes. Call it with every new state
   * of a grouped advert (price, surface, expiry...) and when rebuilding the index at start-up.
   * Adverts without a property are ignored.
   */
  track(advert: GroupableAdvert & { propertyId: string | null }): void {
    if (advert.propertyId === null) return;
    const previous = this.members.get(advert.uuid);
    const member = interned(memberOf(advert, advert.propertyId), previous);
    // Overwritten in place: deleting the entry first left a deleted entry in V8's hash table on
    // every update, and the table is rebuilt whole once those fill it (see the embedded store's
    // `reindex`).
    this.members.set(member.advertId, member);
    if (previous !== undefined && this.replaceInBins(previous, member)) return;
    if (previous !== undefined) this.unbin(previous);
    let bucket = this.buckets.get(member.bucketKey);
    if (bucket === undefined) {
      bucket = { bySurface: new Map(), byLandSurface: new Map() };
      this.buckets.set(member.bucketKey, bucket);
    }
    if (member.surfaceBin !== null) pushTo(bucket.bySurface, member.surfaceBin, member);
    if (member.landBin !== null) pushTo(bucket.byLandSurface, member.landBin, member);
  }

  /** Forgets every advert (before a read-model rebuild replays them). */
  clear(): void {
    this.members.clear();
    this.buckets.clear();
  }

  remove(advertId: string): void {
    const member = this.members.get(advertId);
    if (member === undefined) return;
    this.members.delete(advertId);
    this.unbin(member);
  }

  /**
   * The new version of a member takes its predecessor's place when both fall in the same bins (a
   * price change, a new crawl): nothing is removed and added again. False when the bins differ.
   */
  private replaceInBins(previous: Member, member: Member): boolean {
    if (previous.bucketKey !== member.bucketKey || previous.surfaceBin !== member.surfaceBin || previous.landBin !== member.landBin) return false;
    const bucket = this.buckets.get(member.bucketKey);
    if (bucket === undefined) return false;
    if (member.surfaceBin !== null) replaceIn(bucket.bySurface, member.surfaceBin, previous, member);
    if (member.landBin !== null) replaceIn(bucket.byLandSurface, member.landBin, previous, member);
    return true;
  }

  /** Takes a member out of its bucket's bins (not out of `members`). */
  private unbin(member: Member): void {
    const bucket = this.buckets.get(member.bucketKey);
    if (bucket === undefined) return;
    if (member.surfaceBin !== null) removeFrom(bucket.bySurface, member.surfaceBin, member);
    if (member.landBin !== null) removeFrom(bucket.byLandSurface, member.landBin, member);
    if (bucket.bySurface.size === 0 && bucket.byLandSurface.size === 0) this.buckets.delete(member.bucketKey);
  }

  private takeBest(): Member | null {
    const best = this.best;
    this.best = null;
    return best;
  }

  private scanBins(
    bins: Map<number, Member[]>,
    lo: number,
    hi: number,
    advert: GroupableAdvert,
    cutoff: string,
    onlyWithoutSurface: boolean,
  ): void {
    // A handful of bins is in range for usual tolerances, but a tiny value makes the lower bound
    // unbounded: walk the bucket's bins instead when there are fewer of them than in the range.
    if (hi - lo > bins.size) {
      for (const [bin, list] of bins) {
        if (bin >= lo && bin <= hi) this.considerAll(list, advert, cutoff, onlyWithoutSurface);
      }
      return;
    }
    for (let bin = lo; bin <= hi; bin++) {
      const list = bins.get(bin);
      if (list !== undefined) this.considerAll(list, advert, cutoff, onlyWithoutSurface);
    }
  }

  private considerAll(list: Member[], advert: GroupableAdvert, cutoff: string, onlyWithoutSurface: boolean): void {
    for (const m of list) {
      if (onlyWithoutSurface && m.surface !== null) continue;
      this.scanned++;
      if (m.advertId === advert.uuid) continue;
      if (!m.expired && m.site === advert.site && m.publisherName === advert.publisher.name) continue;
      if (m.expired && m.expiredAt !== null && m.expiredAt < cutoff) continue;
      const score = attributesMatch(advert, m, this.thresholds);
      if (score === null) continue;
      const best = this.best;
      if (best === null || score < this.bestScore || (score === this.bestScore && m.propertyId < best.propertyId)) {
        this.best = m;
        this.bestScore = score;
      }
    }
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

function memberOf(advert: GroupableAdvert, propertyId: string): Member {
  return {
    advertId: advert.uuid,
    propertyId,
    site: advert.site,
    publisherName: advert.publisher.name,
    surface: advert.surface,
    landSurface: advert.landSurface,
    room: advert.room,
    floor: advert.floor,
    energyCategory: advert.energy?.category ?? null,
    price: advert.price,
    lat: advert.location?.lat ?? null,
    lon: advert.location?.lon ?? null,
    expired: advert.expired,
    expiredAt: advert.expiredAt,
    bucketKey: bucketKeyOf(advert),
    surfaceBin: advert.surface !== null ? binOf(advert.surface) : null,
    landBin: advert.landSurface !== null ? binOf(advert.landSurface) : null,
  };
}

/**
 * An indexed member's strings, interned (see `internString`): members live as long as their
 * adverts, so ids are shared with the store's skeletons, and sites, publishers and buckets are
 * one string each. `previous` (the advert's member before this state) lends those that did not change.
 */
function interned(member: Member, previous: Member | undefined): Member {
  const keep = (value: string, before: string | null | undefined) => (before === value ? before : internString(value));
  member.advertId = keep(member.advertId, previous?.advertId);
  member.propertyId = keep(member.propertyId, previous?.propertyId);
  member.site = keep(member.site, previous?.site);
  member.publisherName = keep(member.publisherName, previous?.publisherName);
  member.bucketKey = keep(member.bucketKey, previous?.bucketKey);
  if (member.energyCategory !== null) member.energyCategory = keep(member.energyCategory, previous?.energyCategory);
  return member;
}

/** Bins that can hold a value within tolerance of `value`, whichever side is larger. */
function toleranceBins(value: number, absolute: number, relative: number): [number, number] {
  const lo = Math.min(value - absolute, value * (1 - relative));
  const hi = Math.max(value + absolute, value / (1 - relative));
  return [lo > 0 ? binOf(lo) : Number.MIN_SAFE_INTEGER, binOf(hi)];
}

function pushTo(bins: Map<number, Member[]>, bin: number, member: Member): void {
  const list = bins.get(bin);
  if (list === undefined) bins.set(bin, [member]);
  else list.push(member);
}

function replaceIn(bins: Map<number, Member[]>, bin: number, previous: Member, member: Member): void {
  const list = bins.get(bin);
  if (list === undefined) {
    bins.set(bin, [member]);
    return;
  }
  const i = list.indexOf(previous);
  if (i >= 0) list[i] = member;
  else list.push(member);
}

function removeFrom(bins: Map<number, Member[]>, bin: number, member: Member): void {
  const list = bins.get(bin);
  if (list === undefined) return;
  const i = list.indexOf(member);
  if (i >= 0) {
    // Order inside a bin is irrelevant (ties break on property id), so swap-remove in O(1).
    const last = list.pop();
    if (last !== undefined && last !== member) list[i] = last;
  }
  if (list.length === 0) bins.delete(bin);
}
