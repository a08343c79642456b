/**
 * One bitset per small-valued key of a property: its transaction and property type, the sites and
 * publisher types of its adverts, its furnishing, expiry, coordinates, price coherence, and the
 * advert-level values that some advert has (energy letters, virtual tour…).
 *
 * The advert-level flags only say that SOME advert has the value; since one advert must meet all
 * advert criteria together, they narrow the candidates and the advert rows decide.
 *
 * The families are small (enums, a few dozen sites), so a document's flags are replaced by
 * clearing its bit in every set rather than by remembering which it had.
 */
import { Bitset } from './bitset';
import type { SearchRow } from './search-row';

const SITE_CATEGORY_PREFIX = 'site-category:';

/** Flag names, shared by the rows that set them and the queries that read them. */
export const FLAG = {
  transactionType: (type: number) => `transactionType:${type}`,
  propertyType: (type: number) => `propertyType:${type}`,
  publisherType: (type: number) => `publisherType:${type}`,
  site: (site: string) => `site:${site}`,
  siteCategory: (category: string) => `${SITE_CATEGORY_PREFIX}${category}`,
  furnished: (furnished: boolean) => `furnished:${furnished}`,
  expired: 'expired',
  location: 'location',
  incoherentPrice: 'incoherentPrice',
  energy: (category: string) => `energy:${category}`,
  greenHouseGas: (category: string) => `greenHouseGas:${category}`,
  virtualTour: (has: boolean) => `virtualTour:${has}`,
  feesResponsibility: (payer: number) => `feesResponsibility:${payer}`,
  geoAccuracy: (accuracy: number) => `geoAccuracy:${accuracy}`,
  /** Has a price (surface) event: an event filter first keeps these, then checks their events. */
  event: (field: 'price' | 'surface') => `event:${field}`,
} as const;

/** The site categories some indexed property's advert comes from, sorted. */
export function siteCategoriesIn(flags: FlagSets): string[] {
  return flags
    .namesInUse(SITE_CATEGORY_PREFIX)
    .map((flag) => flag.slice(SITE_CATEGORY_PREFIX.length))
    .sort();
}

export function flagsOf(row: SearchRow): Set<string> {
  const flags = new Set<string>([FLAG.transactionType(row.transactionType), FLAG.propertyType(row.propertyType)]);
  if (row.furnished !== null) flags.add(FLAG.furnished(row.furnished));
  if (row.expired) flags.add(FLAG.expired);
  if (row.location !== null) flags.add(FLAG.location);
  if (!row.coherentPrice) flags.add(FLAG.incoherentPrice);
  for (const event of row.events) flags.add(FLAG.event(event.field));
  for (const advert of row.adverts) {
    flags.add(FLAG.publisherType(advert.publisherType));
    flags.add(FLAG.site(advert.site));
    // Rows stored before categories were indexed have none: a rebuild of the read models adds them.
    if (advert.siteCategory !== undefined) flags.add(FLAG.siteCategory(advert.siteCategory));
    if (advert.energyCategory !== null) flags.add(FLAG.energy(advert.energyCategory));
    if (advert.greenHouseGasCategory !== null) flags.add(FLAG.greenHouseGas(advert.greenHouseGasCategory));
    flags.add(FLAG.virtualTour(advert.hasVirtualTour));
    if (advert.feesResponsibility !== null) flags.add(FLAG.feesResponsibility(advert.feesResponsibility));
    if (advert.geoAccuracy !== null) flags.add(FLAG.geoAccuracy(advert.geoAccuracy));
  }
  return flags;
}

export class FlagSets {
  private readonly sets = new Map<string, Bitset>();

  get byteLength(): number {
    let total = 0;
    for (const set of this.sets.values()) total += set.byteLength;
    return total;
  }

  exportState(): [flag: string, words: Uint32Array][] {
    return [...this.sets].map(([flag, set]) => [flag, set.exportState()]);
  }

  importState(state: readonly [flag: string, words: Uint32Array][]): void {
    this.sets.clear();
    for (const [flag, words] of state) {
      const set = new Bitset();
      set.importState(words);
      this.sets.set(flag, set);
    }
  }

  /** The documents with the flag; an unknown flag has none. */
  get(flag: string): Bitset {
    return this.sets.get(flag) ?? new Bitset();
  }

  /** The names of the flags some document has, among those starting with `prefix`. */
  namesInUse(prefix: string): string[] {
    return [...this.sets].filter(([flag, set]) => flag.startsWith(prefix) && !set.isEmpty()).map(([flag]) => flag);
  }

  /** The documents with any of the flags, as a transient set (see `Bitset.transient`). */
  union(flags: readonly string[]): Bitset {
    const sets = flags.map((flag) => this.sets.get(flag)).filter((set): set is Bitset => set !== undefined);
    const union = Bitset.transient(sets.reduce((capacity, set) => Math.max(capacity, set.capacity), 0));
    for (const set of sets) union.or(set);
    return union;
  }

  assign(doc: number, flags: Iterable<string>): void {
    this.remove(doc);
    for (const flag of flags) {
      let set = this.sets.get(flag);
      if (set === undefined) this.sets.set(flag, (set = new Bitset()));
      set.add(doc);
    }
  }

  remove(doc: number): void {
    for (const set of this.sets.values()) set.delete(doc);
  }

  trim(): void {
    for (const set of this.sets.values()) set.trim();
  }
}
