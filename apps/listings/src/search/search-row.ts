/**
 * The search row of a property: what `matches` and `compareForOrder` read of a PropertyDocument,
 * already derived (instants in epoch milliseconds, the places a city counts as, upper-cased energy
 * letters, the tokens of its texts), and nothing else. The listings service persists one next to
 * each document and feeds them to the index at start, so the index never parses a document.
 *
 * Plain JSON data: `null` for a missing value (never NaN, which JSON cannot carry), no Dates, no
 * typed arrays. Every derivation goes through the criteria library's own helpers, so the row and
 * the reference predicate cannot disagree on what a place, a token or a coherent price is.
 */
import type { Advert, AdvertEvent, City, PropertyDocument } from '@immo/contracts';
import {
  advertGeoAccuracy,
  cityIdsCovering,
  creationTimeMs,
  hasCoherentPrice,
  inseeCodesCovering,
  liveAdvertPrice,
  searchableTexts,
  tokenize,
  zipcodesOf,
  type AdvertRangeKey,
} from '@immo/property-criteria';

/**
 * Bumped whenever the shape or a derivation changes, so that persisted rows of an older version
 * are rebuilt from their documents instead of being searched with a stale meaning: the listings
 * service does so at start (see `storedSearchRowVersion` and `SearchIndexProjection.indexDocuments`).
 */
export const SEARCH_ROW_VERSION = 2;

/** The keys a city is found by in the place filters, as `matches` computes them. */
export interface SearchPlace {
  /** The city's own id first, then the communes it belongs to (`cityIdsCovering`). */
  cityIds: number[];
  /** The city's own INSEE code first, upper case, then its commune's (`inseeCodesCovering`). */
  inseeCodes: string[];
  /** Every postal code of the commune (`zipcodesOf`). */
  zipcodes: string[];
  departmentId: number;
}

/** What the advert-level criteria read of one advert; they must all hold for the same advert. */
export type SearchAdvertRow = Record<AdvertRangeKey, number | null> & {
  site: string;
  siteCategory?: string;
  publisherType: number;
  /** Upper case, as `energyCategories` compares it; null without a rating. */
  energyCategory: string | null;
  greenHouseGasCategory: string | null;
  feesResponsibility: number | null;
  hasVirtualTour: boolean;
  expiredAtMs: number | null;
  /** Not in the advert contract yet; read when a document carries it, as `matches` does. */
  geoAccuracy: number | null;
  /**
   * The advert's price while it has not expired, null after (`liveAdvertPrice`): what
   * `advertPriceMin`/`Max` read. Absent from rows of version 1, which match no bound: the
   * listings service computes such stored rows again at start (see search-row-version.ts).
   */
  livePrice?: number | null;
};

/** A price or surface change of any advert; other fields' events match no filter and are left out. */
export interface SearchEventRow {
  field: 'price' | 'surface';
  percentVariation: number | null;
  createdAtMs: number | null;
}

export interface SearchRow {
  uuid: string;
  transactionType: number;
  propertyType: number;
  price: number | null;
  pricePerMeter: number | null;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  bedroom: number | null;
  furnished: boolean | null;
  /** The document's own flag (every advert expired), not recomputed from the adverts. */
  expired: boolean;
  /** `withCoherentPrice` (default true) keeps the property. */
  coherentPrice: boolean;
  createdAtMs: number | null;
  updatedAtMs: number | null;
  /** Creation of the most recent advert: what `sortMode=advert` reads. */
  latestAdvertCreatedAtMs: number | null;
  location: { lat: number; lon: number } | null;
  place: SearchPlace | null;
  adverts: SearchAdvertRow[];
  events: SearchEventRow[];
  /**
   * Each distinct searched text (titles and descriptions of the property and its adverts) as its
   * tokens joined by single spaces. Kept in sequence rather than as a set of words because a
   * phrase must match consecutive tokens of one text; a space never occurs inside a token.
   */
  texts: string[];
}

export function searchRowOf(doc: PropertyDocument): SearchRow {
  return {
    uuid: doc.uuid,
    transactionType: doc.transactionType,
    propertyType: doc.propertyType,
    price: numberOrNull(doc.price),
    pricePerMeter: numberOrNull(doc.pricePerMeter),
    surface: numberOrNull(doc.surface),
    landSurface: numberOrNull(doc.landSurface),
    room: numberOrNull(doc.room),
    bedroom: numberOrNull(doc.bedroom),
    furnished: doc.furnished,
    expired: doc.expired,
    coherentPrice: hasCoherentPrice(doc),
    createdAtMs: creationTimeMs(doc, 'property'),
    updatedAtMs: instantMs(doc.updatedAt),
    latestAdvertCreatedAtMs: creationTimeMs(doc, 'advert'),
    location: doc.locations === null ? null : { lat: doc.locations.lat, lon: doc.locations.lon },
    place: doc.city === null ? null : placeOf(doc.city),
    adverts: doc.adverts.map(advertRowOf),
    events: doc.adverts.flatMap((advert) => advert.events.flatMap(eventRowOf)),
    texts: distinctTokenTexts(searchableTexts(doc)),
  };
}

function placeOf(city: City): SearchPlace {
  return {
    cityIds: distinct(cityIdsCovering(city)),
    inseeCodes: distinct(inseeCodesCovering(city)),
    zipcodes: distinct(zipcodesOf(city)),
    departmentId: city.department.id,
  };
}

function advertRowOf(advert: Advert): SearchAdvertRow {
  return {
    site: advert.site,
    siteCategory: advert.siteCategory,
    publisherType: advert.publisher.type,
    priceExcludingFees: numberOrNull(advert.priceExcludingFees),
    floorQuantity: numberOrNull(advert.floorQuantity),
    lotCount: numberOrNull(advert.lotCount),
    condominiumFees: numberOrNull(advert.condominiumFees),
    constructionYear: numberOrNull(advert.constructionYear),
    feesPercentage: numberOrNull(advert.feesPercentage),
    rentalCharges: numberOrNull(advert.rentalCharges),
    rentalPledge: numberOrNull(advert.rentalPledge),
    renterFees: numberOrNull(advert.renterFees),
    inventoryPrice: numberOrNull(advert.inventoryPrice),
    energyValue: numberOrNull(advert.energy?.value),
    greenHouseGasValue: numberOrNull(advert.greenHouseGas?.value),
    energyCategory: advert.energy ? advert.energy.category.toUpperCase() : null,
    greenHouseGasCategory: advert.greenHouseGas ? advert.greenHouseGas.category.toUpperCase() : null,
    feesResponsibility: advert.feesResponsibility,
    hasVirtualTour: advert.virtualTour !== null && advert.virtualTour.trim() !== '',
    expiredAtMs: instantMs(advert.expiredAt),
    geoAccuracy: numberOrNull(advertGeoAccuracy(advert)),
    livePrice: numberOrNull(liveAdvertPrice(advert)),
  };
}

function eventRowOf(event: AdvertEvent): SearchEventRow[] {
  if (event.fieldName !== 'price' && event.fieldName !== 'surface') return [];
  return [{ field: event.fieldName, percentVariation: numberOrNull(event.percentVariation), createdAtMs: instantMs(event.createdAt) }];
}

/** Duplicates answer every phrase alike: a property's text usually repeats its lead advert's. */
function distinctTokenTexts(texts: readonly string[]): string[] {
  const joined = new Set<string>();
  // The same text tokenizes the same: each is folded once (the document's own title and
  // description are its lead advert's).
  for (const text of new Set(texts)) {
    const tokens = tokenize(text);
    if (tokens.length > 0) joined.add(tokens.join(' '));
  }
  return [...joined];
}

/** As `Date.parse` reads it for the filters; an unreadable date is missing. */
function instantMs(timestamp: string | null | undefined): number | null {
  if (timestamp === null || timestamp === undefined) return null;
  return numberOrNull(Date.parse(timestamp));
}

function numberOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined || Number.isNaN(value) ? null : value;
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
