/**
 * The price and surface events of every property (over all its adverts), one run per property in
 * a slab. An event filter holds when ONE event of its kind meets the variation and date bounds
 * together (see event-filters.ts in the criteria library); properties rarely have more than a few
 * events, so they are scanned rather than indexed.
 */
import type { NumberRange, PropertyCriteria, TimeRange } from '@immo/property-criteria';
import type { SearchEventRow } from './search-row';
import { Slab, type SlabState } from './slab';

const FIELD_CODES = { price: 0, surface: 1 } as const;

/** One event filter of a query; null bounds accept anything, a missing value included. */
export interface EventCheck {
  kind: keyof typeof FIELD_CODES;
  field: number;
  variation: { min: number; max: number } | null;
  createdAt: { min: number; max: number } | null;
}

/** The active event filters of the criteria (none, one or both kinds). */
export function eventChecksOf(criteria: PropertyCriteria): EventCheck[] {
  const checks: EventCheck[] = [];
  const add = (field: keyof typeof FIELD_CODES, variation: NumberRange, createdAt: TimeRange): void => {
    const variationBound = boundOf(variation.min, variation.max);
    const createdAtBound = boundOf(createdAt.from, createdAt.to);
    if (variationBound !== null || createdAtBound !== null) checks.push({ kind: field, field: FIELD_CODES[field], variation: variationBound, createdAt: createdAtBound });
  };
  add('price', criteria.eventPriceVariation, criteria.eventPriceVariationCreatedAt);
  add('surface', criteria.eventSurfaceVariation, criteria.eventSurfaceVariationCreatedAt);
  return checks;
}

function boundOf(min: number | undefined, max: number | undefined): { min: number; max: number } | null {
  return min === undefined && max === undefined ? null : { min: min ?? -Infinity, max: max ?? Infinity };
}

export class EventTable {
  private readonly slab = new Slab({ field: Uint8Array, percentVariation: Float64Array, createdAtMs: Float64Array });

  exportState(): SlabState {
    return this.slab.exportState();
  }

  importState(state: SlabState): void {
    this.slab.importState(state);
  }

  get byteLength(): number {
    return this.slab.byteLength;
  }

  write(doc: number, events: readonly SearchEventRow[]): void {
    if (events.length === 0) {
      this.slab.release(doc);
      return;
    }
    const start = this.slab.resize(doc, events.length, false);
    const columns = this.slab.columns;
    events.forEach((event, i) => {
      columns.field[start + i] = FIELD_CODES[event.field];
      columns.percentVariation[start + i] = event.percentVariation ?? Number.NaN;
      columns.createdAtMs[start + i] = event.createdAtMs ?? Number.NaN;
    });
  }

  release(doc: number): void {
    this.slab.release(doc);
  }

  anySatisfies(doc: number, check: EventCheck): boolean {
    const { field, percentVariation, createdAtMs } = this.slab.columns;
    const start = this.slab.start(doc);
    const end = start + this.slab.count(doc);
    for (let row = start; row < end; row++) {
      if (field[row] !== check.field) continue;
      if (check.variation !== null && !within(percentVariation[row] as number, check.variation)) continue;
      if (check.createdAt !== null && !within(createdAtMs[row] as number, check.createdAt)) continue;
      return true;
    }
    return false;
  }

  compact(trim: boolean): void {
    this.slab.compact(trim);
  }
}

/** NaN (a missing value) fails both comparisons. */
function within(value: number, bound: { min: number; max: number }): boolean {
  return value >= bound.min && value <= bound.max;
}
