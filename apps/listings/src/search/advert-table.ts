/**
 * The advert rows of every property, one run per property in a slab, for the advert-level
 * criteria: ONE advert must meet all of them together (see advert-filters.ts in the criteria
 * library), so they are checked advert by advert, on a property that the flags let through.
 *
 * Missing numbers are NaN, which fails every bound as `withinRange` fails a missing value; an open
 * range is skipped, so it accepts them.
 */
import { ADVERT_RANGE_KEYS, type AdvertRangeKey, type PropertyCriteria } from '@immo/property-criteria';
import type { SearchAdvertRow } from './search-row';
import { Slab, type SlabState } from './slab';

/** The letters the criteria accept; any other rating matches no category filter. */
const CATEGORY_LETTERS = 'ABCDEFG';
const OTHER_CATEGORY = 7;
const NO_CATEGORY = 255;
const NO_PAYER = -1;

const COLUMNS = {
  ...(Object.fromEntries(ADVERT_RANGE_KEYS.map((key) => [key, Float64Array])) as Record<AdvertRangeKey, Float64ArrayConstructor>),
  expiredAtMs: Float64Array,
  geoAccuracy: Float64Array,
  livePrice: Float64Array,
  feesResponsibility: Int8Array,
  energyCategory: Uint8Array,
  greenHouseGasCategory: Uint8Array,
  hasVirtualTour: Uint8Array,
};

interface Bound {
  values: AdvertRangeKey | 'expiredAtMs';
  min: number;
  max: number;
}

/** The advert-level criteria of one query, ready to test rows with. */
export interface AdvertCheck {
  bounds: Bound[];
  feesResponsibility: number | undefined;
  /** Bit i set: letter i of A–G is wanted; 0: no category filter. */
  energyMask: number;
  greenHouseGasMask: number;
  hasVirtualTour: number | undefined;
  geoAccuracy: readonly number[];
}

/** Null when the criteria say nothing about adverts, which then pass whatever they hold. */
export function advertCheckOf(criteria: PropertyCriteria): AdvertCheck | null {
  const bounds: Bound[] = [];
  for (const key of ADVERT_RANGE_KEYS) {
    const { min, max } = criteria[key];
    if (min !== undefined || max !== undefined) bounds.push({ values: key, min: min ?? -Infinity, max: max ?? Infinity });
  }
  const { from, to } = criteria.expiredAt;
  if (from !== undefined || to !== undefined) bounds.push({ values: 'expiredAtMs', min: from ?? -Infinity, max: to ?? Infinity });
  const check: AdvertCheck = {
    bounds,
    feesResponsibility: criteria.feesResponsibility,
    energyMask: categoryMask(criteria.energyCategories),
    greenHouseGasMask: categoryMask(criteria.greenHouseGasCategories),
    hasVirtualTour: criteria.withVirtualTour === undefined ? undefined : Number(criteria.withVirtualTour),
    geoAccuracy: criteria.geoAccuracy,
  };
  const constrains =
    bounds.length > 0 ||
    check.feesResponsibility !== undefined ||
    check.energyMask !== 0 ||
    check.greenHouseGasMask !== 0 ||
    check.hasVirtualTour !== undefined ||
    check.geoAccuracy.length > 0;
  return constrains ? check : null;
}

export class AdvertTable {
  private readonly slab = new Slab(COLUMNS);

  exportState(): SlabState {
    return this.slab.exportState();
  }

  importState(state: SlabState): void {
    this.slab.importState(state);
  }

  get byteLength(): number {
    return this.slab.byteLength;
  }

  write(doc: number, adverts: readonly SearchAdvertRow[]): void {
    if (adverts.length === 0) {
      this.slab.release(doc);
      return;
    }
    const start = this.slab.resize(doc, adverts.length, false);
    const columns = this.slab.columns;
    adverts.forEach((advert, i) => {
      const row = start + i;
      for (const key of ADVERT_RANGE_KEYS) columns[key][row] = advert[key] ?? Number.NaN;
      columns.expiredAtMs[row] = advert.expiredAtMs ?? Number.NaN;
      columns.geoAccuracy[row] = advert.geoAccuracy ?? Number.NaN;
      columns.livePrice[row] = advert.livePrice ?? Number.NaN;
      columns.feesResponsibility[row] = advert.feesResponsibility === 0 || advert.feesResponsibility === 1 ? advert.feesResponsibility : NO_PAYER;
      columns.energyCategory[row] = categoryCode(advert.energyCategory);
      columns.greenHouseGasCategory[row] = categoryCode(advert.greenHouseGasCategory);
      columns.hasVirtualTour[row] = advert.hasVirtualTour ? 1 : 0;
    });
  }

  release(doc: number): void {
    this.slab.release(doc);
  }

  /** Whether one advert of the document meets every advert-level criterion. */
  anySatisfies(doc: number, check: AdvertCheck): boolean {
    const columns = this.slab.columns;
    const start = this.slab.start(doc);
    const end = start + this.slab.count(doc);
    for (let row = start; row < end; row++) if (rowSatisfies(columns, row, check)) return true;
    return false;
  }

  /** Whether an advert of the document that has not expired is priced within [min, max]. */
  anyLivePriceWithin(doc: number, min: number, max: number): boolean {
    const prices = this.slab.columns.livePrice;
    const start = this.slab.start(doc);
    const end = start + this.slab.count(doc);
    for (let row = start; row < end; row++) {
      const price = prices[row] as number;
      if (price >= min && price <= max) return true;
    }
    return false;
  }

  compact(trim: boolean): void {
    this.slab.compact(trim);
  }
}

function rowSatisfies(columns: Slab<typeof COLUMNS>['columns'], row: number, check: AdvertCheck): boolean {
  for (const bound of check.bounds) {
    const value = columns[bound.values][row] as number;
    if (!(value >= bound.min && value <= bound.max)) return false;
  }
  if (check.feesResponsibility !== undefined && columns.feesResponsibility[row] !== check.feesResponsibility) return false;
  if (check.energyMask !== 0 && !inMask(columns.energyCategory[row] as number, check.energyMask)) return false;
  if (check.greenHouseGasMask !== 0 && !inMask(columns.greenHouseGasCategory[row] as number, check.greenHouseGasMask)) return false;
  if (check.hasVirtualTour !== undefined && columns.hasVirtualTour[row] !== check.hasVirtualTour) return false;
  if (check.geoAccuracy.length > 0 && !check.geoAccuracy.includes(columns.geoAccuracy[row] as number)) return false;
  return true;
}

function inMask(code: number, mask: number): boolean {
  return code < OTHER_CATEGORY && (mask & (1 << code)) !== 0;
}

function categoryMask(categories: readonly string[]): number {
  let mask = 0;
  for (const category of categories) {
    const code = categoryCode(category);
    if (code < OTHER_CATEGORY) mask |= 1 << code;
  }
  return mask;
}

function categoryCode(category: string | null): number {
  if (category === null) return NO_CATEGORY;
  const index = category.length === 1 ? CATEGORY_LETTERS.indexOf(category) : -1;
  return index < 0 ? OTHER_CATEGORY : index;
}
