import { greatCircleKm } from '@immo/contracts';
import { parsePropertyCriteria, SIMILARITY, type NumberRange, type OrderClause, type OrderField, type PropertyCriteria, type TimeRange } from '@immo/property-criteria';
import type { IndexedProperty } from './property-search-index';

function distanceKm(a: IndexedProperty, b: IndexedProperty): number | null {
  return a.location && b.location ? greatCircleKm(a.location, b.location) : null;
}

/** Criteria with no filter but the defaults, the base the candidate searches narrow. */
const DEFAULT_CRITERIA: PropertyCriteria = (() => {
  const parsed = parsePropertyCriteria({});
  if (!parsed.ok) throw new Error('the empty query must be valid');
  return parsed.criteria;
})();

/**
 * What every similar property of `target` meets besides `isSimilar`: its transaction and type, a
 * coherent price (the collection's default), the price band and the client's `fromDate` and
 * advert price bounds. The
 * index narrows the target's commune and radius documents with these; `similarBaseCriteria`
 * states the same as criteria, for the reference predicate.
 */
export interface SimilarBase {
  transactionType: number;
  propertyType: number;
  withCoherentPrice: boolean;
  /** On the property's creation. */
  date: TimeRange;
  budget: NumberRange;
  /** The client's `advertPriceMin`/`Max`. */
  advertPrice: NumberRange;
}

export function similarBase(target: IndexedProperty, criteria: PropertyCriteria): SimilarBase {
  return {
    transactionType: target.transactionType,
    propertyType: target.propertyType,
    withCoherentPrice: DEFAULT_CRITERIA.withCoherentPrice,
    date: criteria.date,
    budget: target.price === null ? {} : { min: target.price * (1 - SIMILARITY.priceTolerance), max: target.price * (1 + SIMILARITY.priceTolerance) },
    advertPrice: criteria.advertPrice,
  };
}

/** `base` as criteria on the collection (property sort mode: `date` reads the property's creation). */
export function similarBaseCriteria(base: SimilarBase): PropertyCriteria {
  return {
    ...DEFAULT_CRITERIA,
    transactionType: base.transactionType as PropertyCriteria['transactionType'],
    propertyTypes: [base.propertyType as PropertyCriteria['propertyTypes'][number]],
    withCoherentPrice: base.withCoherentPrice,
    sortMode: 'property',
    date: base.date,
    budget: base.budget,
    advertPrice: base.advertPrice,
  };
}

export function isSimilar(target: IndexedProperty, candidate: IndexedProperty): boolean {
  if (candidate.uuid === target.uuid) return false;
  if (candidate.transactionType !== target.transactionType || candidate.propertyType !== target.propertyType) return false;
  const distance = distanceKm(target, candidate);
  const sameCommune = target.cityId !== null && candidate.cityId === target.cityId;
  if (!sameCommune && (distance === null || distance > SIMILARITY.radiusKm)) return false;
  if (target.price !== null) {
    if (candidate.price === null || Math.abs(candidate.price - target.price) > SIMILARITY.priceTolerance * target.price) return false;
  }
  if (target.surface !== null && candidate.surface !== null && Math.abs(candidate.surface - target.surface) > SIMILARITY.surfaceTolerance * target.surface) return false;
  if (target.room !== null && candidate.room !== null && Math.abs(candidate.room - target.room) > SIMILARITY.roomTolerance) return false;
  return true;
}

/**
 * Lower is closer: relative price gap + relative surface gap + `roomWeight` per room of difference
 * + distance as a share of `radiusKm` (half of it when a location is missing). Each term is 0 for
 * an identical property; an unknown value adds nothing but the distance's half.
 */
export function similarityScore(target: IndexedProperty, candidate: IndexedProperty): number {
  let score = 0;
  if (target.price && candidate.price !== null) score += Math.abs(candidate.price - target.price) / target.price;
  if (target.surface && candidate.surface !== null) score += Math.abs(candidate.surface - target.surface) / target.surface;
  if (target.room !== null && candidate.room !== null) score += SIMILARITY.roomWeight * Math.abs(candidate.room - target.room);
  const distance = distanceKm(target, candidate);
  score += distance === null ? 0.5 : Math.min(distance, SIMILARITY.radiusKm) / SIMILARITY.radiusKm;
  return score;
}

export const ORDER_FIELD_VALUE: Record<OrderField, (p: IndexedProperty) => number | null> = {
  createdAt: (p) => p.createdAtMs,
  updatedAt: (p) => p.updatedAtMs,
  price: (p) => p.price,
  pricePerMeter: (p) => p.pricePerMeter,
  surface: (p) => p.surface,
};

/**
 * The similar properties among `candidates`, ranked: by the `order` clauses a client gave (missing
 * values last in both directions), then by score, then by uuid, so pages never overlap.
 */
export function rankSimilar(target: IndexedProperty, candidates: Iterable<IndexedProperty>, order: readonly OrderClause[]): IndexedProperty[] {
  const scored: { property: IndexedProperty; score: number }[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (seen.has(candidate.uuid) || !isSimilar(target, candidate)) continue;
    seen.add(candidate.uuid);
    scored.push({ property: candidate, score: similarityScore(target, candidate) });
  }
  scored.sort((a, b) => {
    for (const clause of order) {
      const x = ORDER_FIELD_VALUE[clause.field](a.property);
      const y = ORDER_FIELD_VALUE[clause.field](b.property);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return clause.direction === 'asc' ? x - y : y - x;
    }
    if (a.score !== b.score) return a.score - b.score;
    return a.property.uuid < b.property.uuid ? -1 : a.property.uuid > b.property.uuid ? 1 : 0;
  });
  return scored.map((entry) => entry.property);
}
