/**
 * Which parameters each endpoint reads, and how their types differ (spec: GET /documents/properties,
 * …/similar-properties, /indicators/price_per_meter). A name an endpoint does not read is unknown
 * there: it is reported as ignored, never refused, so one client-side query builder can serve all
 * three endpoints.
 */
import { ORDER_FIELDS, type OrderField, type RangeKey, type TimeRangeKey } from './criteria';
import { DEFAULT_ITEMS_PER_PAGE } from './limits';

export type CriteriaEndpoint = 'properties' | 'price_per_meter' | 'similar';

/** Every numeric range, in the order the spec lists them; its parameters are `<key>Min` and `<key>Max`. */
export const RANGE_KEYS: readonly RangeKey[] = [
  'budget',
  'advertPrice',
  'priceExcludingFees',
  'pricePerMeter',
  'surface',
  'landSurface',
  'room',
  'bedroom',
  'floorQuantity',
  'lotCount',
  'condominiumFees',
  'constructionYear',
  'feesPercentage',
  'rentalCharges',
  'rentalPledge',
  'renterFees',
  'inventoryPrice',
  'energyValue',
  'greenHouseGasValue',
  'eventPriceVariation',
  'eventSurfaceVariation',
];

export const rangeParameterNames = (key: RangeKey): { min: string; max: string } => ({ min: `${key}Min`, max: `${key}Max` });

/** Date ranges and their parameter names, which do not follow one pattern. */
export const TIME_RANGE_PARAMETERS: Readonly<Record<TimeRangeKey, { from: string; to: string }>> = {
  date: { from: 'fromDate', to: 'toDate' },
  updatedAt: { from: 'fromUpdatedAt', to: 'toUpdatedAt' },
  expiredAt: { from: 'fromExpiredAt', to: 'toExpiredAt' },
  eventPriceVariationCreatedAt: { from: 'eventPriceVariationFromCreatedAt', to: 'eventPriceVariationToCreatedAt' },
  eventSurfaceVariationCreatedAt: { from: 'eventSurfaceVariationFromCreatedAt', to: 'eventSurfaceVariationToCreatedAt' },
};

const LIST_PARAMETERS = [
  'propertyTypes',
  'publisherTypes',
  'energyCategories',
  'greenHouseGasCategories',
  'geoAccuracy',
  'includedCities',
  'excludedCities',
  'includedDepartments',
  'includedInseeCodes',
  'excludedInseeCodes',
  'includedZipcodes',
  'excludedZipcodes',
  'includedSites',
  'excludedSites',
  'includedSiteCategories',
  'excludedSiteCategories',
  'excludedProperties',
] as const;

const SCALAR_PARAMETERS = [
  'page',
  'itemsPerPage',
  'sortMode',
  'expired',
  'transactionType',
  'feesResponsibility',
  'furnished',
  'withCoherentPrice',
  'withLocation',
  'withVirtualTour',
  'lat',
  'lon',
  'radius',
] as const;

const STRUCTURED_PARAMETERS = ['order', 'expressions', 'geoShapes'] as const;

/**
 * Other names a parameter is read under, as the original service's description writes them. A
 * query gives one name or the other, never both; a saved search stores the main name only.
 */
export const PARAMETER_ALIASES: Readonly<Record<string, string>> = { expression: 'expressions' };

export interface EndpointParameters {
  endpoint: CriteriaEndpoint;
  /** Top-level names read on this endpoint. */
  names: ReadonlySet<string>;
  /** `order[<field>]` keys read on this endpoint; other keys are ignored. */
  orderFields: readonly OrderField[];
  /** Ranges whose bounds must be integers here. */
  integerRanges: ReadonlySet<RangeKey>;
  integerRadius: boolean;
  /** `expired=null` means "both" on the collection; the indicator types `expired` as a plain boolean. */
  expiredAcceptsNull: boolean;
  defaultItemsPerPage: number;
}

function allPropertiesParameterNames(): string[] {
  return [
    ...SCALAR_PARAMETERS,
    ...LIST_PARAMETERS,
    ...STRUCTURED_PARAMETERS,
    ...Object.keys(PARAMETER_ALIASES),
    ...RANGE_KEYS.flatMap((key) => Object.values(rangeParameterNames(key))),
    ...Object.values(TIME_RANGE_PARAMETERS).flatMap((names) => [names.from, names.to]),
  ];
}

const PROPERTIES: EndpointParameters = {
  endpoint: 'properties',
  names: new Set(allPropertiesParameterNames()),
  orderFields: ORDER_FIELDS,
  integerRanges: new Set(),
  // The collection's table types radius as an integer, yet the indicator section lists radius among
  // the parameters that become integers there, so the collection takes decimal kilometres.
  integerRadius: false,
  expiredAcceptsNull: true,
  defaultItemsPerPage: DEFAULT_ITEMS_PER_PAGE.properties,
};

/**
 * Parameters of the collection that the indicator does not have (spec, price_per_meter
 * differences). `withLocation`, `geoAccuracy` and `geoShapes`, absent from the spec's indicator,
 * are read there as the original service's current description has them.
 */
const NOT_ON_PRICE_PER_METER = new Set(['includedSites', 'excludedSites', 'includedSiteCategories', 'excludedSiteCategories', 'fromExpiredAt', 'toExpiredAt']);

const PRICE_PER_METER: EndpointParameters = {
  endpoint: 'price_per_meter',
  names: new Set([...allPropertiesParameterNames().filter((name) => !NOT_ON_PRICE_PER_METER.has(name)), 'aggregationInterval']),
  orderFields: ['createdAt', 'updatedAt'],
  integerRanges: new Set<RangeKey>([
    'bedroom',
    'budget',
    'advertPrice',
    'surface',
    'room',
    'floorQuantity',
    'lotCount',
    'condominiumFees',
    'constructionYear',
    'energyValue',
    'greenHouseGasValue',
    'pricePerMeter',
  ]),
  integerRadius: true,
  expiredAcceptsNull: false,
  defaultItemsPerPage: DEFAULT_ITEMS_PER_PAGE.price_per_meter,
};

const SIMILAR: EndpointParameters = {
  endpoint: 'similar',
  // The advert price bounds narrow the similar properties as they narrow the collection.
  names: new Set(['page', 'itemsPerPage', 'order', 'fromDate', 'advertPriceMin', 'advertPriceMax']),
  orderFields: ORDER_FIELDS,
  integerRanges: new Set(),
  integerRadius: false,
  expiredAcceptsNull: true,
  defaultItemsPerPage: DEFAULT_ITEMS_PER_PAGE.similar,
};

export const ENDPOINT_PARAMETERS: Readonly<Record<CriteriaEndpoint, EndpointParameters>> = {
  properties: PROPERTIES,
  price_per_meter: PRICE_PER_METER,
  similar: SIMILAR,
};

/**
 * The variables of an endpoint's `hydra:search` template: lists in bracket notation
 * (`propertyTypes[]`), each sortable field as `order[<field>]`, structured filters by their stem.
 */
export function searchVariables(endpoint: CriteriaEndpoint): string[] {
  const parameters = ENDPOINT_PARAMETERS[endpoint];
  const lists: ReadonlySet<string> = new Set(LIST_PARAMETERS);
  return [...parameters.names].flatMap((name) => {
    if (name === 'order') return parameters.orderFields.map((field) => `order[${field}]`);
    return [lists.has(name) ? `${name}[]` : name];
  });
}
