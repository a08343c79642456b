/**
 * Advert-level filters. A property matches when ONE of its adverts satisfies all of them together:
 * "rental charges at most 100 € and a virtual tour" must not be met by one advert's charges and
 * another advert's tour, since no publisher offers that combination.
 */
import type { Advert, PropertyDocument } from '@immo/contracts';
import { isOpenRange, isOpenTimeRange, withinRange, withinTimeRange } from './bounds';
import type { AdvertRangeKey, PropertyCriteria } from './criteria';

/** The advert value each advert-level range bounds. */
export const ADVERT_RANGE_VALUES: Readonly<Record<AdvertRangeKey, (advert: Advert) => number | null>> = {
  priceExcludingFees: (advert) => advert.priceExcludingFees,
  floorQuantity: (advert) => advert.floorQuantity,
  lotCount: (advert) => advert.lotCount,
  condominiumFees: (advert) => advert.condominiumFees,
  constructionYear: (advert) => advert.constructionYear,
  feesPercentage: (advert) => advert.feesPercentage,
  rentalCharges: (advert) => advert.rentalCharges,
  rentalPledge: (advert) => advert.rentalPledge,
  renterFees: (advert) => advert.renterFees,
  inventoryPrice: (advert) => advert.inventoryPrice,
  energyValue: (advert) => advert.energy?.value ?? null,
  greenHouseGasValue: (advert) => advert.greenHouseGas?.value ?? null,
};

export const ADVERT_RANGE_KEYS = Object.keys(ADVERT_RANGE_VALUES) as readonly AdvertRangeKey[];

/**
 * Geolocation accuracy of an advert (1 house number, 2 neighbourhood), as ingestion recorded it
 * from the snapshot's `location.accuracy`; null when the source did not say (documents built
 * before the field existed lack it too), and a missing value never satisfies a filter.
 */
export function advertGeoAccuracy(advert: Advert): number | null {
  return advert.geoAccuracy ?? null;
}

export function hasAdvertLevelCriteria(criteria: PropertyCriteria): boolean {
  return (
    ADVERT_RANGE_KEYS.some((key) => !isOpenRange(criteria[key])) ||
    !isOpenTimeRange(criteria.expiredAt) ||
    criteria.feesResponsibility !== undefined ||
    criteria.energyCategories.length > 0 ||
    criteria.greenHouseGasCategories.length > 0 ||
    criteria.withVirtualTour !== undefined ||
    criteria.geoAccuracy.length > 0
  );
}

export function matchesAdvertLevel(criteria: PropertyCriteria, doc: PropertyDocument): boolean {
  if (!hasAdvertLevelCriteria(criteria)) return true;
  return doc.adverts.some((advert) => advertSatisfies(criteria, advert));
}

/** Every advert-level criterion holds for this one advert. */
export function advertSatisfies(criteria: PropertyCriteria, advert: Advert): boolean {
  if (!ADVERT_RANGE_KEYS.every((key) => withinRange(ADVERT_RANGE_VALUES[key](advert), criteria[key]))) return false;
  if (!withinTimeRange(advert.expiredAt, criteria.expiredAt)) return false;
  if (criteria.feesResponsibility !== undefined && advert.feesResponsibility !== criteria.feesResponsibility) return false;
  if (!inCategories(advert.energy?.category, criteria.energyCategories)) return false;
  if (!inCategories(advert.greenHouseGas?.category, criteria.greenHouseGasCategories)) return false;
  if (criteria.withVirtualTour !== undefined && hasVirtualTour(advert) !== criteria.withVirtualTour) return false;
  if (criteria.geoAccuracy.length > 0 && !(criteria.geoAccuracy as number[]).includes(advertGeoAccuracy(advert) ?? Number.NaN)) return false;
  return true;
}

function inCategories(category: string | undefined, wanted: readonly string[]): boolean {
  if (wanted.length === 0) return true;
  return category !== undefined && wanted.includes(category.toUpperCase());
}

function hasVirtualTour(advert: Advert): boolean {
  return advert.virtualTour !== null && advert.virtualTour.trim() !== '';
}
