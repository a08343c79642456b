/**
 * The pure half of the live demo feed (`live-feed.ts`): a seeded source of SYNTHETIC advert
 * snapshots as crawlers would deliver them right now, so that a newcomer's saved search keeps
 * hearing of something. No HTTP, no timers; the clock is injected.
 *
 * Each snapshot is one of:
 * - `new`: a new good in a real commune weighted like the demo set, with the demo generator's
 *   market model, sites and publishers (`generate-snapshots.ts`);
 * - `recrawl`: an advert this feed published, seen again unchanged;
 * - `price-drop` / `price-rise`: a published advert at a new price;
 * - `pictures`: pictures added or one removed;
 * - `expiry`: withdrawn (`expired: true`) or its announced `expiredAt` passed; it is then forgotten.
 *
 * References carry the seed and the generator's start time (`ALIVE-<seed>-<start>-<n>`), so two
 * runs never touch each other's adverts nor the demo set's (`A002026-000001`). Only a bounded number
 * of published adverts is remembered; when full, a random one is forgotten (it stays published,
 * like an advert its crawler stopped visiting).
 */
import { type AdvertSnapshot } from '@immo/contracts';
import { mulberry32 } from '@immo/runtime';
import {
  communeWeightsOf,
  FALLBACK_COMMUNES,
  makeGood,
  makeListing,
  pickPublisher,
  Random,
  roundPrice,
  SITES,
  snapshotOf,
  type DemoCommune,
  type Listing,
  type Publisher,
  type SiteProfile,
} from './generate-snapshots';

export const FEED_KINDS = ['new', 'recrawl', 'price-drop', 'price-rise', 'pictures', 'expiry'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export interface FeedItem {
  kind: FeedKind;
  snapshot: AdvertSnapshot;
}

/**
 * Relative weights of the kinds. Real crawl traffic is mostly recrawls; this mix is richer in
 * changes so that a demo shows alerts within minutes.
 */
export const DEFAULT_FEED_MIX: Readonly<Record<FeedKind, number>> = {
  new: 30,
  recrawl: 34,
  'price-drop': 14,
  'price-rise': 4,
  pictures: 8,
  expiry: 10,
};

export interface FeedGeneratorOptions {
  /** PRNG seed, an integer in [0, 2^32). Default 1. */
  seed?: number;
  /** Milliseconds since the epoch; read once at construction (the run's start) and once per `next`. */
  now?: () => number;
  /** Communes for new goods; default the demo set's built-in list. */
  communes?: readonly DemoCommune[];
  /** Published adverts remembered for later changes. Default 5000. */
  maxTracked?: number;
  /** An advert is changed or recrawled at most this often; at least a second. Default 10 s. */
  minRevisitMs?: number;
  mix?: Readonly<Record<FeedKind, number>>;
}

interface Tracked {
  listing: Listing;
  /** `seenAt` of its last snapshot, ms. */
  lastSeenMs: number;
}

/** Tries at drawing an advert that may be revisited before publishing a new one instead. */
const PICK_ATTEMPTS = 8;
const MAX_PICTURES = 40;

export class FeedGenerator {
  /** Part of every reference: the start time in base 36 and the seed. */
  readonly runId: string;
  private readonly rnd: Random;
  private readonly now: () => number;
  private readonly communeWeights: (readonly [DemoCommune, number])[];
  private readonly mix: (readonly [FeedKind, number])[];
  private readonly maxTracked: number;
  private readonly minRevisitMs: number;
  private readonly agencies = new Map<string, Publisher[]>();
  /** Swap-removed on expiry and eviction, so picks and removals are O(1). */
  private readonly tracked: Tracked[] = [];
  private counter = 0;

  constructor(options: FeedGeneratorOptions = {}) {
    const seed = options.seed ?? 1;
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`seed must be an integer in [0, 2^32), not ${seed}`);
    this.rnd = new Random(mulberry32(seed));
    this.now = options.now ?? Date.now;
    const communes = options.communes && options.communes.length > 0 ? options.communes : FALLBACK_COMMUNES;
    this.communeWeights = communeWeightsOf(communes);
    this.mix = FEED_KINDS.map((kind) => [kind, (options.mix ?? DEFAULT_FEED_MIX)[kind]] as const);
    this.maxTracked = Math.max(1, options.maxTracked ?? 5000);
    // Same-second snapshots are compared without a recrawl: a revisit needs a later second.
    this.minRevisitMs = Math.max(1000, options.minRevisitMs ?? 10_000);
    this.runId = `${seed}-${Math.floor(this.now()).toString(36)}`;
  }

  /** Adverts remembered for later changes. */
  get trackedCount(): number {
    return this.tracked.length;
  }

  /** `n` snapshots seen now; never two of one advert. */
  next(n: number): FeedItem[] {
    const ms = this.now();
    const touched = new Set<Tracked>();
    const items: FeedItem[] = [];
    for (let i = 0; i < n; i++) items.push(this.item(this.rnd.weighted(this.mix), ms, touched));
    return items;
  }

  private item(kind: FeedKind, ms: number, touched: Set<Tracked>): FeedItem {
    if (kind === 'new') return this.publish(ms, touched);
    const index = this.pick(ms, touched);
    const entry = index === null ? undefined : this.tracked[index];
    // Nothing old enough to revisit (the first seconds of a run): publish instead.
    if (index === null || entry === undefined) return this.publish(ms, touched);
    touched.add(entry);
    entry.lastSeenMs = secondOf(ms);
    const { listing } = entry;
    switch (kind) {
      case 'recrawl':
        return { kind, snapshot: snapshotOf(listing, ms, false) };
      case 'price-drop':
      case 'price-rise': {
        const changed = this.changePrice(listing, kind === 'price-drop' ? -1 : 1);
        return { kind: changed ? kind : 'recrawl', snapshot: snapshotOf(listing, ms, false) };
      }
      case 'pictures':
        this.changePictures(listing);
        return { kind, snapshot: snapshotOf(listing, ms, false) };
      case 'expiry': {
        this.forget(index);
        if (this.rnd.chance(0.6)) return { kind, snapshot: snapshotOf(listing, ms, true) };
        // The announced end passed a little before this crawl: expired by date, not withdrawn.
        listing.expiredAt = new Date(secondOf(ms) - Math.round(this.rnd.between(60, 3 * 86_400)) * 1000).toISOString();
        return { kind, snapshot: snapshotOf(listing, ms, false) };
      }
    }
  }

  private publish(ms: number, touched: Set<Tracked>): FeedItem {
    const commune = this.rnd.weighted(this.communeWeights);
    this.counter++;
    const good = makeGood(this.rnd, `live-${this.runId}-${this.counter}`, commune);
    const site = this.rnd.pick(SITES);
    const publisher = pickPublisher(this.rnd, site, commune, this.agencies);
    const listing = makeListing(this.rnd, site, publisher, this.reference(site), good, false);
    if (this.tracked.length >= this.maxTracked) this.forget(Math.floor(this.rnd.float() * this.tracked.length));
    const entry: Tracked = { listing, lastSeenMs: secondOf(ms) };
    this.tracked.push(entry);
    touched.add(entry);
    return { kind: 'new', snapshot: snapshotOf(listing, ms, false) };
  }

  private reference(site: SiteProfile): string {
    // The demo set's references are `<letter><seed>-<n>`; "LIVE" keeps the two apart.
    return `${site.site.slice(-1).toUpperCase()}LIVE-${this.runId}-${String(this.counter).padStart(6, '0')}`;
  }

  private pick(ms: number, touched: Set<Tracked>): number | null {
    if (this.tracked.length === 0) return null;
    for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
      const index = Math.floor(this.rnd.float() * this.tracked.length);
      const entry = this.tracked[index];
      if (entry !== undefined && !touched.has(entry) && entry.lastSeenMs <= ms - this.minRevisitMs) return index;
    }
    return null;
  }

  private forget(index: number): void {
    const last = this.tracked.pop();
    if (last !== undefined && index < this.tracked.length) this.tracked[index] = last;
  }

  /** Returns false when rounding leaves the price where it was (a rent at its floor). */
  private changePrice(listing: Listing, direction: -1 | 1): boolean {
    const transactionType = listing.good.transactionType;
    const factor = direction < 0 ? 1 - this.rnd.between(0.02, 0.08) : 1 + this.rnd.between(0.01, 0.04);
    let price = roundPrice(listing.price * factor, transactionType);
    if (price === listing.price) price = roundPrice(listing.price + direction * priceStep(listing.price, transactionType), transactionType);
    if (price === listing.price) return false;
    listing.price = price;
    return true;
  }

  private changePictures(listing: Listing): void {
    const { pictures, picturesRemote } = listing;
    // Only the last one is removed, so that added pictures (numbered after the count) never
    // repeat an address still listed.
    if (pictures.length >= MAX_PICTURES || (pictures.length > 2 && this.rnd.chance(0.3))) {
      pictures.pop();
      picturesRemote.pop();
      return;
    }
    const n = pictures.length;
    const extra = this.rnd.int(1, 3);
    for (let i = 1; i <= extra; i++) {
      pictures.push(`https://img.${listing.site.site}.example/${listing.reference}/${n + i}.jpg`);
      picturesRemote.push(`https://photos.${listing.publisher.slug}.example/${listing.reference}-${n + i}.jpg`);
    }
  }
}

function secondOf(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** The rounding step of `roundPrice`, so that a nudge always lands on another price. */
function priceStep(price: number, transactionType: 0 | 1): number {
  if (transactionType === 1) return 5;
  return price < 100_000 ? 500 : 1_000;
}
