/**
 * Which documents meet the criteria, in three stages from cheapest to dearest:
 *
 * 1. Keys: whole-set operations on bitsets and posting lists (flags, sites, places, excluded
 *    uuids, grid cells), a few microseconds each, which usually leave a small fraction of the
 *    collection.
 * 2. Values: one pass over the remaining documents checking their columns (ranges, dates), then
 *    their advert and event rows, then the exact distance or point-in-ring test.
 * 3. Text: the expressions, on what is left, since phrases read token sequences.
 *
 * Every step is exact or is followed by an exact one, so the result is the set `matches` accepts.
 */
import { greatCircleKm } from '@immo/contracts';
import { isPointInRing, type NumberRange, type PropertyCriteria, type PropertyRangeKey } from '@immo/property-criteria';
import { advertCheckOf } from './advert-table';
import { Bitset } from './bitset';
import { eventChecksOf } from './event-table';
import { FLAG } from './flag-sets';
import { radiusBox, ringBox } from './geo-area';
import type { LatLonBox } from './geo-grid';
import type { DocColumns, PropertyStore } from './property-store';

export function matchingDocs(store: PropertyStore, criteria: PropertyCriteria): Bitset {
  const candidates = narrowByKeys(store, criteria);
  if (candidates.isEmpty()) return candidates;
  refineByValues(store, criteria, candidates);
  if (candidates.isEmpty()) return candidates;
  return store.texts.matching(criteria.expressions, candidates);
}

function narrowByKeys(store: PropertyStore, criteria: PropertyCriteria): Bitset {
  const { flags } = store;
  const candidates = store.emptyQuerySet().or(store.alive);
  const keep = (set: Bitset): void => void candidates.and(set);
  const drop = (set: Bitset): void => void candidates.andNot(set);

  if (criteria.transactionType !== undefined) keep(flags.get(FLAG.transactionType(criteria.transactionType)));
  if (criteria.propertyTypes.length > 0) keep(flags.union(criteria.propertyTypes.map(FLAG.propertyType)));
  if (criteria.publisherTypes.length > 0) keep(flags.union(criteria.publisherTypes.map(FLAG.publisherType)));
  if (criteria.furnished !== undefined) keep(flags.get(FLAG.furnished(criteria.furnished)));
  if (criteria.expired !== undefined) (criteria.expired ? keep : drop)(flags.get(FLAG.expired));
  if (criteria.withLocation !== undefined) (criteria.withLocation ? keep : drop)(flags.get(FLAG.location));
  if (criteria.withCoherentPrice) drop(flags.get(FLAG.incoherentPrice));
  if (criteria.includedSites.length > 0) keep(flags.union(criteria.includedSites.map(FLAG.site)));
  if (criteria.excludedSites.length > 0) drop(flags.union(criteria.excludedSites.map(FLAG.site)));
  // An event filter needs an event of its kind: a few percent of properties have one.
  for (const check of eventChecksOf(criteria)) keep(flags.get(FLAG.event(check.kind)));
  if (criteria.includedSiteCategories.length > 0) keep(flags.union(criteria.includedSiteCategories.map(FLAG.siteCategory)));
  if (criteria.excludedSiteCategories.length > 0) drop(flags.union(criteria.excludedSiteCategories.map(FLAG.siteCategory)));

  // Some advert has the value: necessary for one advert to meet everything, checked in stage 2.
  if (criteria.energyCategories.length > 0) keep(flags.union(criteria.energyCategories.map(FLAG.energy)));
  if (criteria.greenHouseGasCategories.length > 0) keep(flags.union(criteria.greenHouseGasCategories.map(FLAG.greenHouseGas)));
  if (criteria.withVirtualTour !== undefined) keep(flags.get(FLAG.virtualTour(criteria.withVirtualTour)));
  if (criteria.feesResponsibility !== undefined) keep(flags.get(FLAG.feesResponsibility(criteria.feesResponsibility)));
  if (criteria.geoAccuracy.length > 0) keep(flags.union(criteria.geoAccuracy.map(FLAG.geoAccuracy)));

  store.places.narrow(criteria, candidates);
  for (const uuid of criteria.excludedProperties) for (const doc of store.docsNamed(uuid)) candidates.delete(doc);

  if (criteria.point !== undefined && criteria.radiusKm !== undefined) keep(inCells(store, [radiusBox(criteria.point, criteria.radiusKm)]));
  if (criteria.geoShapes.length > 0) keep(inCells(store, criteria.geoShapes.map(ringBox)));
  return candidates;
}

function inCells(store: PropertyStore, boxes: readonly LatLonBox[]): Bitset {
  const docs = store.emptyQuerySet();
  for (const box of boxes) store.grid.collect(box, docs);
  return docs;
}

const PROPERTY_RANGE_COLUMNS: Readonly<Record<PropertyRangeKey, keyof DocColumns>> = {
  budget: 'price',
  pricePerMeter: 'pricePerMeter',
  surface: 'surface',
  landSurface: 'landSurface',
  room: 'room',
  bedroom: 'bedroom',
};

export type DocCheck = (doc: number) => boolean;

/**
 * A range criterion on a column, the collection's rule: inclusive bounds; a range with neither
 * bound keeps everything, missing values included; a NaN (missing) fails a range with a bound.
 */
export function retainWithinBounds(candidates: Bitset, values: Float64Array, min: number | undefined, max: number | undefined): void {
  if (min === undefined && max === undefined) return;
  candidates.retainInRange(values, min ?? -Infinity, max ?? Infinity);
}

/**
 * `advertPriceMin`/`Max`: some advert that has not expired is priced within the bounds. Two column
 * passes keep the properties whose lowest live price is at most the upper bound and whose highest
 * is at least the lower one. Of those, a property with either price within the bounds matches;
 * only one whose live prices lie both below and above the bounds must read its advert rows, which
 * the returned check does (null when the range is open), so no query walks every advert.
 */
export function narrowByLiveAdvertPrice(store: PropertyStore, candidates: Bitset, range: NumberRange): DocCheck | null {
  if (range.min === undefined && range.max === undefined) return null;
  const min = range.min ?? -Infinity;
  const max = range.max ?? Infinity;
  const { liveAdvertPriceLow: lowest, liveAdvertPriceHigh: highest } = store.columns;
  candidates.retainInRange(highest, min, Infinity).retainInRange(lowest, -Infinity, max);
  return (doc) => (lowest[doc] as number) >= min || (highest[doc] as number) <= max || store.adverts.anyLivePriceWithin(doc, min, max);
}

function refineByValues(store: PropertyStore, criteria: PropertyCriteria, candidates: Bitset): void {
  const { columns } = store;
  const checks: DocCheck[] = [];
  // Column ranges first, each in one tight pass: the cheapest checks shrink the set the dearer
  // ones below walk.
  for (const [key, column] of Object.entries(PROPERTY_RANGE_COLUMNS) as [PropertyRangeKey, keyof DocColumns][]) {
    retainWithinBounds(candidates, columns[column], criteria[key].min, criteria[key].max);
  }
  retainWithinBounds(candidates, criteria.sortMode === 'advert' ? columns.latestAdvertCreatedAtMs : columns.createdAtMs, criteria.date.from, criteria.date.to);
  retainWithinBounds(candidates, columns.updatedAtMs, criteria.updatedAt.from, criteria.updatedAt.to);

  const livePriceCheck = narrowByLiveAdvertPrice(store, candidates, criteria.advertPrice);
  if (livePriceCheck !== null) checks.push(livePriceCheck);
  const advertCheck = advertCheckOf(criteria);
  if (advertCheck !== null) checks.push((doc) => store.adverts.anySatisfies(doc, advertCheck));
  for (const eventCheck of eventChecksOf(criteria)) checks.push((doc) => store.events.anySatisfies(doc, eventCheck));

  // Stage 1 kept only documents of the grid, which all have coordinates.
  const { point, radiusKm, geoShapes } = criteria;
  if (point !== undefined && radiusKm !== undefined) {
    const location = { lat: 0, lon: 0 };
    checks.push((doc) => {
      location.lat = columns.lat[doc] as number;
      location.lon = columns.lon[doc] as number;
      return greatCircleKm(point, location) <= radiusKm;
    });
  }
  if (geoShapes.length > 0) {
    checks.push((doc) => {
      const position: [number, number] = [columns.lon[doc] as number, columns.lat[doc] as number];
      return geoShapes.some((ring) => isPointInRing(position, ring));
    });
  }

  if (checks.length > 0) candidates.retain((doc) => checks.every((check) => check(doc)));
}
