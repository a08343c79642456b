/**
 * The typed criteria of `GET /documents/properties` (and of the similar-properties and
 * price-per-meter endpoints, which accept subsets of them), as `parsePropertyCriteria` returns them.
 *
 * Normalised so that consumers never re-interpret query strings: numbers are numbers, dates are
 * epoch-millisecond bounds, lists are always arrays (empty = no filter), IRIs are reduced to ids,
 * ranges are always objects (no `min`/`max` = no filter). Every bound is inclusive. An absent
 * optional scalar means "no filter". The value is plain data, so a saved search can store it as is.
 */
import type { LatLon } from '@immo/contracts';

/** 0 apartment (flat), 1 house, 2 building, 3 parking, 4 office, 5 land, 6 shop. */
export type PropertyType = 0 | 1 | 2 | 3 | 4 | 5 | 6;
/** 0 sell, 1 rent. */
export type TransactionType = 0 | 1;
/** 0 individual, 1 professional. */
export type PublisherType = 0 | 1;
/** 0 seller, 1 buyer. */
export type FeesResponsibility = 0 | 1;
/** 1 house-number level, 2 neighbourhood level. */
export type GeoAccuracy = 1 | 2;
/** DPE letter, upper case. */
export type EnergyCategory = 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G';

export type SortDirection = 'asc' | 'desc';
export const ORDER_FIELDS = ['createdAt', 'pricePerMeter', 'price', 'surface', 'updatedAt'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export interface OrderClause {
  field: OrderField;
  direction: SortDirection;
}

/**
 * `property`: `fromDate`/`toDate` and `order[createdAt]` read the property's creation;
 * `advert`: they read the creation of the property's most recent advert.
 */
export type SortMode = 'property' | 'advert';
export type AggregationInterval = 'month' | 'year';

/** Inclusive numeric bounds; a missing side is open. */
export interface NumberRange {
  min?: number;
  max?: number;
}

/** Inclusive instants in epoch milliseconds; a missing side is open. */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** Ranges read on the property document itself. */
export type PropertyRangeKey = 'budget' | 'pricePerMeter' | 'surface' | 'landSurface' | 'room' | 'bedroom';

/** Ranges that one advert must satisfy together with every other advert-level criterion. */
export type AdvertRangeKey =
  | 'priceExcludingFees'
  | 'floorQuantity'
  | 'lotCount'
  | 'condominiumFees'
  | 'constructionYear'
  | 'feesPercentage'
  | 'rentalCharges'
  | 'rentalPledge'
  | 'renterFees'
  | 'inventoryPrice'
  | 'energyValue'
  | 'greenHouseGasValue';

/**
 * The price of any advert of the property that has not expired (`advertPriceMin`/`Max`), on its
 * own: it is not one of the advert-level criteria that a single advert must meet together.
 */
export type LiveAdvertRangeKey = 'advertPrice';

/** Percent variation of one price or surface event (negative for a decrease). */
export type EventRangeKey = 'eventPriceVariation' | 'eventSurfaceVariation';

export type RangeKey = PropertyRangeKey | AdvertRangeKey | LiveAdvertRangeKey | EventRangeKey;

/**
 * `date`: fromDate/toDate (creation, see SortMode); `updatedAt`: property update;
 * `expiredAt`: advert expiry; `event…CreatedAt`: creation of the price or surface event.
 */
export type TimeRangeKey = 'date' | 'updatedAt' | 'expiredAt' | 'eventPriceVariationCreatedAt' | 'eventSurfaceVariationCreatedAt';

/** One word condition of an expression group. */
export interface ExpressionCondition {
  /** As given (trimmed); matching folds case and accents itself. */
  word: string;
  /** false: the word must NOT appear. */
  includes: boolean;
  /** true: whole words only; false: the word is a prefix (`travau` finds `travaux`). */
  strict: boolean;
}

/** Every condition of a group must hold; the property matches when any group holds. */
export type ExpressionGroup = ExpressionCondition[];

/** `[lon, lat]`, GeoJSON order, as in `geoShapes[<shape>][<point>][0|1]`. */
export type Position = [lon: number, lat: number];

/** A closed ring: at least 4 positions, the last equal to the first. */
export type Ring = Position[];

export interface PropertyCriteria extends Record<RangeKey, NumberRange>, Record<TimeRangeKey, TimeRange> {
  // Paging and sorting.
  page: number;
  /** 0 asks for the count only. */
  itemsPerPage: number;
  /** Sort keys in the order given; ties are always broken by property uuid ascending. */
  order: OrderClause[];
  sortMode: SortMode;

  // Property-level filters.
  transactionType?: TransactionType;
  propertyTypes: PropertyType[];
  /** Any advert of the property has one of these publisher types. */
  publisherTypes: PublisherType[];
  furnished?: boolean;
  /** Absent: expired and live properties alike. */
  expired?: boolean;
  /** true: the property has coordinates; false: it has none. */
  withLocation?: boolean;
  /** Drops properties whose price per m² is implausible (see coherent-price.ts). */
  withCoherentPrice: boolean;

  // Advert-level filters (besides the advert ranges and `expiredAt`).
  feesResponsibility?: FeesResponsibility;
  energyCategories: EnergyCategory[];
  greenHouseGasCategories: EnergyCategory[];
  /** true: the advert has a virtual tour link; false: it has none. */
  withVirtualTour?: boolean;
  geoAccuracy: GeoAccuracy[];

  // Source sites.
  includedSites: string[];
  excludedSites: string[];
  /** Site categories (`Advert.siteCategory`: portal, agency-network…), the Search resource's filters; the same rules as sites. */
  includedSiteCategories: string[];
  excludedSiteCategories: string[];

  // Places: included lists of every kind form one union, excluded lists always remove.
  /** City ids (`/cities/<id>` reduced to `<id>`). */
  includedCities: number[];
  excludedCities: number[];
  /** Department ids (`/departments/<id>` reduced to `<id>`). */
  includedDepartments: number[];
  includedInseeCodes: string[];
  excludedInseeCodes: string[];
  includedZipcodes: string[];
  excludedZipcodes: string[];
  /** Property uuids, lower case. */
  excludedProperties: string[];

  // Geography.
  /** Centre of the radius filter; lat and lon always come together. */
  point?: LatLon;
  /** Kilometres around `point`, great-circle distance; only given with `point`. */
  radiusKm?: number;
  /** Union of closed rings. */
  geoShapes: Ring[];

  expressions: ExpressionGroup[];

  /** Only for the price-per-meter indicator. */
  aggregationInterval?: AggregationInterval;
}

/** Sort of the properties collection when the caller gives none (spec: `order[createdAt]` desc). */
export const DEFAULT_ORDER: readonly OrderClause[] = [{ field: 'createdAt', direction: 'desc' }];
