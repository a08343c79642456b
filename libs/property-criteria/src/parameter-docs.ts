/**
 * What each query parameter means, as API documentation (the gateway's OpenAPI document).
 *
 * The texts restate the README's parameter tables, which remain the reference. They are data in
 * this module rather than read from the README at run time: a service must not depend on a
 * Markdown file being shipped with it, nor on the layout of its tables. A change of semantics
 * therefore changes both; the unit test checks that every parameter the collection reads is
 * described and that no description outlives its parameter.
 *
 * The texts describe `GET /documents/properties`. The other endpoints read subsets with the same
 * meaning; what differs there (integer bounds, `expired=null`, page size, sort keys) is taken from
 * ENDPOINT_PARAMETERS, so the documented types are the ones the parser applies.
 */
import { DEFAULT_ORDER, type OrderField, type PropertyType, type RangeKey, type TimeRangeKey } from './criteria';
import { ADVERT_RANGE_VALUES } from './advert-filters';
import { COHERENT_PRICE_PER_METER } from './coherent-price';
import { ENDPOINT_PARAMETERS, RANGE_KEYS, TIME_RANGE_PARAMETERS, rangeParameterNames, searchVariables, type CriteriaEndpoint, type EndpointParameters } from './endpoint-parameters';
import { MIN_RING_POSITIONS } from './geo-shapes';
import { MAX_ARRAY_ITEMS, MAX_EXPRESSION_WORD_LENGTH, MAX_EXPRESSION_WORDS, MAX_ITEMS_PER_PAGE, MAX_SHAPE_POINTS } from './limits';
import { PROPERTY_RANGE_VALUES } from './property-filters';

/** One query parameter as an OpenAPI document lists it (`in: query` is implied). */
export interface ParameterDescription {
  /** As written in the query string: `budgetMin`, `propertyTypes[]`, `order[price]`, `expressions`. */
  name: string;
  description: string;
  /** JSON Schema of the value (of the whole list for `name[]`, of the whole structure for deepObject). */
  schema: Record<string, unknown>;
  style?: 'deepObject';
  explode?: boolean;
}

type JsonSchema = Readonly<Record<string, unknown>>;

/** A text or schema that depends on the endpoint reading the parameter. */
type PerEndpoint<T> = T | ((parameters: EndpointParameters) => T);

interface ParameterDoc {
  description: PerEndpoint<string>;
  /** Schema of the value; for a list parameter, of one item (the list wrapper is added per variable). */
  schema: PerEndpoint<JsonSchema>;
}

// ---------------------------------------------------------------------------------------------
// Shared wording.

const ADVERT_RULE =
  'Advert-level filter: ONE advert of the property must satisfy all advert-level filters together ' +
  '(a property whose advert A meets `rentalChargesMax` and whose advert B meets `withVirtualTour` does not match both).';

const LIVE_ADVERT_RULE =
  'The property matches when ANY of its adverts that has not expired is priced within the bounds, ' +
  'whichever advert meets the advert-level filters; a property whose adverts have all expired does not match.';

const PLACE_UNION =
  'Included cities, departments, INSEE codes and postal codes together form one area, their union; ' +
  'a property without a city is outside it. Excluded lists always remove.';

const EXCLUDED_PLACE = 'Properties there are left out, whatever the included lists say.';

const ARRONDISSEMENTS = 'Paris (75056), Marseille (13055) and Lyon (69123) cover their arrondissements.';

const DATE_FORMS =
  'A date `YYYY-MM-DD`, `YYYY-MM-DD hh:mm:ss` or ISO 8601 (`2026-03-01T10:00:00+01:00`, `…Z`); ' +
  'without an offset the time is Europe/Paris local time.';

const PROPERTY_TYPE_NAMES: Readonly<Record<PropertyType, string>> = {
  0: 'flat',
  1: 'house',
  2: 'building',
  3: 'parking',
  4: 'office',
  5: 'land',
  6: 'shop',
};

const PROPERTY_TYPES = Object.keys(PROPERTY_TYPE_NAMES).map(Number);

/** `0 flat, 1 house, …` */
const propertyTypeList = (): string =>
  Object.entries(PROPERTY_TYPE_NAMES)
    .map(([code, name]) => `${code} ${name}`)
    .join(', ');

const figure = (value: number): string => value.toLocaleString('en-GB', { maximumFractionDigits: 2 });

/** The whole plausibility table, so API clients see which prices `withCoherentPrice` drops. */
function coherentPriceBands(): string {
  const bands = (transactionType: 0 | 1): string =>
    Object.entries(COHERENT_PRICE_PER_METER[transactionType])
      .map(([type, band]) => `${PROPERTY_TYPE_NAMES[Number(type) as PropertyType]} ${figure(band.min)}–${figure(band.max)}`)
      .join(', ');
  return `sale, €/m²: ${bands(0)}; rent, €/m²/month: ${bands(1)}`;
}

const DEFAULT_ORDER_TEXT = DEFAULT_ORDER.map((clause) => `order[${clause.field}]=${clause.direction}`).join('&');

// ---------------------------------------------------------------------------------------------
// Schemas.

const integerEnum = (values: readonly number[]): JsonSchema => ({ type: 'integer', enum: [...values] });
const BOOLEAN: JsonSchema = { type: 'boolean' };
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const DATE_BOUND: JsonSchema = {
  type: 'string',
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  examples: ['2026-03-01', '2026-03-01T10:00:00+01:00'],
};
const LETTER_A_TO_G: JsonSchema = { type: 'string', pattern: '^[A-Ga-g]$', examples: ['A', 'B'] };
const SITE: JsonSchema = { type: 'string', minLength: 1, maxLength: 100 };
const CITY: JsonSchema = { type: 'string', pattern: '^(/cities/)?[1-9][0-9]{0,8}$', examples: ['/cities/75056'] };
const DEPARTMENT: JsonSchema = { type: 'string', pattern: '^(/departments/)?[1-9][0-9]{0,8}$', examples: ['/departments/69'] };
const INSEE_CODE: JsonSchema = { type: 'string', pattern: '^([0-9]{5}|2[ABab][0-9]{3})$', examples: ['69383', '2A004'] };
const ZIPCODE: JsonSchema = { type: 'string', pattern: '^[0-9]{5}$', examples: ['75015'] };
const PROPERTY_REFERENCE: JsonSchema = {
  type: 'string',
  anyOf: [{ format: 'uuid' }, { pattern: `^/(documents/)?properties/${UUID}$` }],
};
const numberOrInteger = (integer: boolean): JsonSchema => ({ type: integer ? 'integer' : 'number' });

const EXPRESSIONS_SCHEMA: JsonSchema = {
  type: 'array',
  description: 'Groups (any may hold) of word conditions (all must hold).',
  items: {
    type: 'array',
    items: {
      type: 'object',
      required: ['word'],
      properties: {
        word: { type: 'string', minLength: 1, maxLength: MAX_EXPRESSION_WORD_LENGTH },
        options: {
          type: 'object',
          properties: { includes: { type: 'boolean', default: true }, strict: { type: 'boolean', default: false } },
        },
      },
    },
  },
};

const GEO_SHAPES_SCHEMA: JsonSchema = {
  type: 'array',
  description: 'Closed rings of [longitude, latitude] points.',
  items: {
    type: 'array',
    minItems: MIN_RING_POSITIONS,
    items: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      prefixItems: [
        { type: 'number', minimum: -180, maximum: 180, description: 'longitude' },
        { type: 'number', minimum: -90, maximum: 90, description: 'latitude' },
      ],
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Ranges: `<key>Min`/`<key>Max` and the date pairs.

const RANGE_SUBJECTS: Readonly<Record<RangeKey, string>> = {
  budget: 'asking price of the property, in € (the monthly rent for a rental)',
  advertPrice: 'price of an advert of the property that has not expired, in € (the monthly rent for a rental)',
  priceExcludingFees: 'price without agency fees, in €',
  pricePerMeter: 'price per m² of the property',
  surface: 'living surface, in m²',
  landSurface: 'land surface, in m²',
  room: 'number of rooms',
  bedroom: 'number of bedrooms',
  floorQuantity: 'number of floors of the building',
  lotCount: 'number of lots of the condominium',
  condominiumFees: 'condominium fees',
  constructionYear: 'year of construction',
  feesPercentage: 'agency fees, in percent',
  rentalCharges: 'monthly charges of a rental',
  rentalPledge: 'security deposit',
  renterFees: 'fees paid by the tenant',
  inventoryPrice: 'price of the check-in inventory',
  energyValue: 'energy consumption value',
  greenHouseGasValue: 'greenhouse gas emission value',
  eventPriceVariation: 'percent variation of a price change (negative for a drop)',
  eventSurfaceVariation: 'percent variation of a surface change (negative for a decrease)',
};

const eventRule = (kind: 'price' | 'surface'): string => {
  const stem = kind === 'price' ? 'eventPriceVariation' : 'eventSurfaceVariation';
  return (
    `ONE ${kind} change of any advert of the property must meet every given \`${stem}…\` bound together ` +
    '(variation and date), so an old change and a recent one do not combine.'
  );
};

/** Where a range is read, taken from the matcher's own grouping so the text cannot contradict it. */
function rangeRule(key: RangeKey): string {
  if (key in PROPERTY_RANGE_VALUES) return 'A property without this value does not match.';
  if (key in ADVERT_RANGE_VALUES) return `An advert without this value does not satisfy it. ${ADVERT_RULE}`;
  if (key === 'advertPrice') return LIVE_ADVERT_RULE;
  return eventRule(key === 'eventPriceVariation' ? 'price' : 'surface');
}

function rangeDocs(): Record<string, ParameterDoc> {
  const docs: Record<string, ParameterDoc> = {};
  for (const key of RANGE_KEYS) {
    const { min, max } = rangeParameterNames(key);
    const schema = (parameters: EndpointParameters) => numberOrInteger(parameters.integerRanges.has(key));
    docs[min] = {
      description: `Lower bound, inclusive, of the ${RANGE_SUBJECTS[key]}; refused when greater than \`${max}\`. ${rangeRule(key)}`,
      schema,
    };
    docs[max] = { description: `Upper bound, inclusive, of the ${RANGE_SUBJECTS[key]}. ${rangeRule(key)}`, schema };
  }
  return docs;
}

const TIME_RANGE_SUBJECTS: Readonly<Record<TimeRangeKey, { subject: string; rule: string }>> = {
  date: {
    subject: 'creation of the property (with `sortMode=advert`, creation of its most recent advert)',
    rule: 'A property without that date does not match.',
  },
  updatedAt: { subject: 'last update of the property', rule: 'A property without that date does not match.' },
  expiredAt: { subject: 'expiry of the advert', rule: `An advert without an expiry does not satisfy it. ${ADVERT_RULE}` },
  eventPriceVariationCreatedAt: { subject: 'date of a price change', rule: eventRule('price') },
  eventSurfaceVariationCreatedAt: { subject: 'date of a surface change', rule: eventRule('surface') },
};

function timeRangeDocs(): Record<string, ParameterDoc> {
  const docs: Record<string, ParameterDoc> = {};
  for (const [key, { from, to }] of Object.entries(TIME_RANGE_PARAMETERS) as [TimeRangeKey, { from: string; to: string }][]) {
    const { subject, rule } = TIME_RANGE_SUBJECTS[key];
    docs[from] = {
      description: `Lower bound, inclusive, of the ${subject}; refused when after \`${to}\`. ${DATE_FORMS} ${rule}`,
      schema: DATE_BOUND,
    };
    docs[to] = {
      description: `Upper bound, inclusive, of the ${subject}; a bare date includes that whole day. ${DATE_FORMS} ${rule}`,
      schema: DATE_BOUND,
    };
  }
  return docs;
}

// ---------------------------------------------------------------------------------------------
// Sort keys.

const ORDER_FIELD_SUBJECTS: Readonly<Record<OrderField, string>> = {
  createdAt: 'creation of the property (with `sortMode=advert`, creation of its most recent advert)',
  pricePerMeter: 'price per m²',
  price: 'asking price',
  surface: 'living surface',
  updatedAt: 'last update of the property',
};

const ORDER_RULES =
  `\`asc\` or \`desc\`. Several \`order[…]\` keys sort by each in the order written; without any, the order is \`${DEFAULT_ORDER_TEXT}\`. ` +
  'Properties lacking the sort value come last in both directions; ties are broken by property uuid ascending. ' +
  'An `order[<key>]` for a field not listed is ignored and named in the `X-Ignored-Parameters` response header.';

const ORDER_DIRECTION: JsonSchema = { type: 'string', enum: ['asc', 'desc'] };

// ---------------------------------------------------------------------------------------------
// The descriptions, keyed by parameter stem (the name without brackets).

/** Every parameter `GET /documents/properties` reads, and only those. */
export const PARAMETER_DESCRIPTIONS: Readonly<Record<string, ParameterDoc>> = {
  // Paging and order.
  page: { description: 'Page number, from 1 (default 1).', schema: { type: 'integer', minimum: 1, default: 1 } },
  itemsPerPage: {
    description: (parameters) =>
      `Page size (default ${parameters.defaultItemsPerPage}); above ${MAX_ITEMS_PER_PAGE} it is capped at ${MAX_ITEMS_PER_PAGE}, not refused. ` +
      '`0` returns no member, only the count in `hydra:totalItems`.',
    schema: (parameters) => ({ type: 'integer', minimum: 0, default: parameters.defaultItemsPerPage }),
  },
  order: { description: ORDER_RULES, schema: ORDER_DIRECTION },
  sortMode: {
    description:
      '`property` (default): `fromDate`/`toDate` and `order[createdAt]` read the creation of the property. ' +
      '`advert`: they read the creation of its most recent advert, so a property advertised again counts as new.',
    schema: { type: 'string', enum: ['property', 'advert'], default: 'property' },
  },

  // Property.
  transactionType: { description: '0 sell, 1 rent.', schema: integerEnum([0, 1]) },
  propertyTypes: { description: `Any of ${propertyTypeList()}; the property has one of them.`, schema: integerEnum(PROPERTY_TYPES) },
  publisherTypes: {
    description: 'Any of 0 individual, 1 professional; at least one advert of the property has one of them.',
    schema: integerEnum([0, 1]),
  },
  furnished: {
    description: '`true`: furnished; `false`: not furnished. A property whose furnishing is unknown matches neither.',
    schema: BOOLEAN,
  },
  expired: {
    description: (parameters) =>
      '`true`: every advert of the property has expired; `false`: at least one advert is live; ' +
      (parameters.expiredAcceptsNull ? 'absent or `null`: both.' : 'absent: both.'),
    schema: (parameters) => (parameters.expiredAcceptsNull ? { anyOf: [BOOLEAN, { type: 'string', const: 'null' }] } : BOOLEAN),
  },
  withLocation: { description: '`true`: the property has coordinates; `false`: it has none.', schema: BOOLEAN },
  withCoherentPrice: {
    description:
      'Default `true`: drops properties whose price per m² lies outside a plausible band for their transaction and property type ' +
      `(${coherentPriceBands()}; table \`COHERENT_PRICE_PER_METER\` of the criteria library). ` +
      'A property without a price per m² is kept. `false` keeps everything.',
    schema: { type: 'boolean', default: true },
  },
  ...rangeDocs(),
  ...timeRangeDocs(),

  // Advert.
  feesResponsibility: { description: `Who pays the agency fees: 0 seller, 1 buyer. ${ADVERT_RULE}`, schema: integerEnum([0, 1]) },
  energyCategories: { description: `Energy performance letters A–G (any case); the advert has one of them. ${ADVERT_RULE}`, schema: LETTER_A_TO_G },
  greenHouseGasCategories: {
    description: `Greenhouse gas emission letters A–G (any case); the advert has one of them. ${ADVERT_RULE}`,
    schema: LETTER_A_TO_G,
  },
  withVirtualTour: { description: `\`true\`: the advert has a virtual tour link; \`false\`: it has none. ${ADVERT_RULE}`, schema: BOOLEAN },
  geoAccuracy: {
    description:
      `1 (house number) or 2 (neighbourhood): the advert's position has that accuracy. ${ADVERT_RULE} ` +
      "Ingestion records it from the snapshot's `location.accuracy`; an advert whose source did not say has none and never matches.",
    schema: integerEnum([1, 2]),
  },

  // Sources.
  includedSites: { description: 'Source sites; at least one advert of the property comes from one of them.', schema: SITE },
  excludedSites: { description: 'Source sites; a property is left out when any of its adverts comes from one of them.', schema: SITE },
  includedSiteCategories: { description: 'Site categories (portal, agency-network…); at least one advert of the property comes from a site of one of them.', schema: SITE },
  excludedSiteCategories: { description: 'Site categories; a property is left out when any of its adverts comes from a site of one of them.', schema: SITE },

  // Places.
  includedCities: {
    description: `City IRIs \`/cities/<id>\` (or bare ids) from the location lookup. ${ARRONDISSEMENTS} ${PLACE_UNION}`,
    schema: CITY,
  },
  excludedCities: { description: `City IRIs \`/cities/<id>\` (or bare ids). ${ARRONDISSEMENTS} ${EXCLUDED_PLACE}`, schema: CITY },
  includedDepartments: { description: `Department IRIs \`/departments/<id>\` (or bare ids). ${PLACE_UNION}`, schema: DEPARTMENT },
  includedInseeCodes: {
    description: `INSEE commune codes (\`69383\`, \`2A004\`); a commune's code covers its arrondissements. ${PLACE_UNION}`,
    schema: INSEE_CODE,
  },
  excludedInseeCodes: {
    description: `INSEE commune codes (\`69383\`, \`2A004\`); a commune's code covers its arrondissements. ${EXCLUDED_PLACE}`,
    schema: INSEE_CODE,
  },
  includedZipcodes: { description: `Postal codes; every postal code of the property's commune counts. ${PLACE_UNION}`, schema: ZIPCODE },
  excludedZipcodes: { description: `Postal codes; every postal code of the property's commune counts. ${EXCLUDED_PLACE}`, schema: ZIPCODE },
  excludedProperties: {
    description: 'Properties to leave out: uuid, `/documents/properties/<uuid>` or `/properties/<uuid>`.',
    schema: PROPERTY_REFERENCE,
  },

  // Geography.
  lat: {
    description: 'Latitude of the centre of the radius filter, in degrees; `lat` and `lon` are required together.',
    schema: { type: 'number', minimum: -90, maximum: 90 },
  },
  lon: {
    description: 'Longitude of the centre of the radius filter, in degrees; `lat` and `lon` are required together.',
    schema: { type: 'number', minimum: -180, maximum: 180 },
  },
  radius: {
    description:
      'Kilometres (great-circle distance) around `lat`/`lon`, greater than 0; requires both. A property without coordinates does not match.',
    schema: (parameters) => ({ ...numberOrInteger(parameters.integerRadius), exclusiveMinimum: 0 }),
  },
  geoShapes: {
    description:
      'Areas drawn on a map, written `geoShapes[<shape>][<point>][0]=<lon>&geoShapes[<shape>][<point>][1]=<lat>` ' +
      `(GeoJSON order: longitude first). Each shape is a closed ring of at least ${MIN_RING_POSITIONS} points, the last repeating the first; ` +
      'several shapes form a union. A point on an edge is inside; a property without coordinates does not match. ' +
      `At most ${figure(MAX_SHAPE_POINTS)} points over all shapes.`,
    schema: GEO_SHAPES_SCHEMA,
  },

  // Full text.
  expressions: {
    description:
      'Words searched in the titles and descriptions of the property and of its adverts, written ' +
      '`expressions[<group>][<i>][word]=<word>`, with optional `expressions[<group>][<i>][options][includes]` ' +
      '(default `true`; `false`: the word must NOT appear) and `expressions[<group>][<i>][options][strict]` ' +
      '(default `false`: the word is a prefix, `travau` finds `travaux`; `true`: whole words only). ' +
      'Every word of a group must hold; the property matches when any group holds. Case and accents are ignored, ' +
      'spelling is not: no fuzziness, no stemming. A word of several tokens is a phrase whose tokens follow each other in one text. ' +
      `At most ${MAX_EXPRESSION_WORDS} words over all groups, ${MAX_EXPRESSION_WORD_LENGTH} characters each.`,
    schema: EXPRESSIONS_SCHEMA,
  },
  expression: {
    description:
      'The same as `expressions`, under the name the original service also uses (`expression[<group>][<i>][word]=<word>`…); ' +
      'a query gives one or the other, and both at once is refused.',
    schema: EXPRESSIONS_SCHEMA,
  },
};

/** Parameters only the price-per-meter indicator reads. */
export const INDICATOR_PARAMETER_DESCRIPTIONS: Readonly<Record<string, ParameterDoc>> = {
  aggregationInterval: {
    description: '`month` (default) or `year`: granularity of the price-per-meter series.',
    schema: { type: 'string', enum: ['month', 'year'], default: 'month' },
  },
};

const STRUCTURED = new Set(['expressions', 'expression', 'geoShapes']);
const LIST_SUFFIX = '[]';
const ORDER_VARIABLE = /^order\[(.+)\]$/;

function resolve<T>(value: PerEndpoint<T>, parameters: EndpointParameters): T {
  return typeof value === 'function' ? (value as (parameters: EndpointParameters) => T)(parameters) : value;
}

function docOf(stem: string, endpoint: CriteriaEndpoint): ParameterDoc {
  const doc = PARAMETER_DESCRIPTIONS[stem] ?? INDICATOR_PARAMETER_DESCRIPTIONS[stem];
  // A parameter added to ENDPOINT_PARAMETERS without a description is a gap in the API
  // documentation; the unit test meets this first, for every endpoint.
  if (doc === undefined) throw new Error(`No description of the ${endpoint} parameter ${stem}`);
  return doc;
}

/**
 * One entry per variable of the endpoint's search template (`searchVariables`), in the same order:
 * lists as `name[]`, each sort key as `order[<field>]`, `expressions` and `geoShapes` as deepObject.
 * Fresh objects on every call: callers may adapt them without touching the shared texts.
 */
export function describeParameters(endpoint: CriteriaEndpoint): ParameterDescription[] {
  const parameters = ENDPOINT_PARAMETERS[endpoint];
  return searchVariables(endpoint).map((name) => {
    const orderField = ORDER_VARIABLE.exec(name)?.[1] as OrderField | undefined;
    if (orderField !== undefined) {
      const doc = docOf('order', endpoint);
      return {
        name,
        description: `Sort by ${ORDER_FIELD_SUBJECTS[orderField]}: ${resolve(doc.description, parameters)}`,
        schema: structuredClone(resolve(doc.schema, parameters)) as Record<string, unknown>,
      };
    }
    const isList = name.endsWith(LIST_SUFFIX);
    const stem = isList ? name.slice(0, -LIST_SUFFIX.length) : name;
    const doc = docOf(stem, endpoint);
    const valueSchema = structuredClone(resolve(doc.schema, parameters)) as Record<string, unknown>;
    return {
      name,
      description: resolve(doc.description, parameters),
      schema: isList ? { type: 'array', items: valueSchema, maxItems: MAX_ARRAY_ITEMS } : valueSchema,
      ...(STRUCTURED.has(stem) ? { style: 'deepObject' as const, explode: true } : {}),
    };
  });
}
