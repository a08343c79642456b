/**
 * `components.schemas` of the OpenAPI document: the resources the API answers and the bodies it
 * takes. Where a zod schema validates the shape it is converted (`fromZod`); where the shape is a
 * TypeScript contract type its properties are listed as `Described<T>`, so the type check fails
 * when a field is added to the contract and not here. The geo resources are typed in the geo app,
 * which the gateway may not import: their schemas follow `apps/geo/src/domain/city-model.ts`.
 */
import {
  ADVERT_WEBHOOK_KINDS,
  ENERGY_CATEGORIES,
  FACILITY_CATEGORIES,
  FEES_RESPONSIBILITIES,
  NOTIFICATION_KINDS,
  PROPERTY_TYPES,
  PUBLISHER_TYPES,
  SEARCH_RECORD_LISTS,
  SEARCH_RECORD_VALUES,
  TRANSACTION_TYPES,
  advertSnapshotSchema,
  advertWebhookEventSchema,
  createAccountRequestSchema,
  disableNotificationsRequestSchema,
  violationSchema,
  type AccountKeySummary,
  type AccountSummary,
  type Advert,
  type AdvertContact,
  type AdvertEvent,
  type AdvertPublisher,
  type City,
  type CityRef,
  type CityRelation,
  type CreatedAccount,
  type DeliveryAttempt,
  type DeliveryView,
  type DepartmentRelation,
  type EnergyRating,
  type EventPayload,
  type GeoPoint,
  type IngestAdvertsReply,
  type IngestItemResult,
  type IssuedKey,
  type MatchListItem,
  type MatchPayload,
  type PricePerMeterReply,
  type ProjectionStatusReply,
  type PropertyDocument,
  type SiteCategoryRelation,
  type Station,
  type StationLine,
  type WebhookCity,
  type WebhookDryRun,
  type WebhookPropertyDocument,
  type WebhookSecretView,
  type WebhookTestResult,
} from '@immo/contracts';
import { describeParameters, PARAMETER_ALIASES } from '@immo/property-criteria';
import { EntrypointController } from '../entrypoint/entrypoint.controller';
import type { HydraCollection } from '../http/hydra-collection';
import type { ProblemBody } from '../http/problem';
import { arrayOf, DATE_TIME, fromZod, jsonLd, nullable, objectSchema, ref, UUID, type Described, type JsonSchema } from './json-schema';

const STRING: JsonSchema = { type: 'string' };
const INTEGER: JsonSchema = { type: 'integer' };
const NUMBER: JsonSchema = { type: 'number' };
const BOOLEAN: JsonSchema = { type: 'boolean' };
const STRINGS: JsonSchema = arrayOf(STRING);

const PROPERTY_TYPE: JsonSchema = { type: 'integer', enum: [...PROPERTY_TYPES], description: '0 flat, 1 house, 2 building, 3 parking, 4 office, 5 land, 6 shop' };
const TRANSACTION_TYPE: JsonSchema = { type: 'integer', enum: [...TRANSACTION_TYPES], description: '0 sale, 1 rent' };
const PUBLISHER_TYPE: JsonSchema = { type: 'integer', enum: [...PUBLISHER_TYPES], description: '0 individual, 1 professional' };

// ---------------------------------------------------------------------------------------------
// Property documents (libs/contracts/src/listings/property-document.ts).

const geoPoint = objectSchema<GeoPoint>({ lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } });

const energyRating = objectSchema<EnergyRating>({
  category: { type: 'string', enum: [...ENERGY_CATEGORIES] },
  value: NUMBER,
});

const advertEvent = objectSchema<AdvertEvent>(
  {
    fieldName: { type: 'string', description: '`price` and `surface` entries are what the price and surface variation filters read' },
    fieldOldValue: STRING,
    fieldNewValue: STRING,
    percentVariation: { type: 'number', description: 'Negative for a decrease, two decimals; 0 for fields without a numeric variation' },
    createdAt: DATE_TIME,
  },
  { description: 'One change of an advert field' },
);

const advertContact = objectSchema<AdvertContact>({
  agency: nullable(STRING),
  email: nullable(STRING),
  fax: nullable(STRING),
  name: nullable(STRING),
  phone: nullable(STRING),
  reference: nullable(STRING),
});

const advertPublisher = objectSchema<AdvertPublisher>({ category: STRING, name: STRING, type: PUBLISHER_TYPE });

const advert = objectSchema<Advert>(
  {
    uuid: UUID,
    url: nullable({ type: 'string', format: 'uri' }),
    title: STRING,
    description: STRING,
    price: { type: 'number', description: 'Euros; a monthly rent for a rental' },
    priceExcludingFees: nullable(NUMBER),
    feesPercentage: nullable(NUMBER),
    feesResponsibility: nullable({ type: 'integer', enum: [...FEES_RESPONSIBILITIES] }),
    condominiumFees: nullable(NUMBER),
    rentalCharges: nullable(NUMBER),
    rentalPledge: nullable(NUMBER),
    renterFees: nullable(NUMBER),
    inventoryPrice: nullable(NUMBER),
    surface: nullable({ type: 'number', description: 'm²' }),
    landSurface: nullable({ type: 'number', description: 'm²' }),
    room: nullable(INTEGER),
    bedroom: nullable(INTEGER),
    floor: nullable(INTEGER),
    floorQuantity: nullable(INTEGER),
    lotCount: nullable(INTEGER),
    constructionYear: nullable(INTEGER),
    elevator: nullable(BOOLEAN),
    furnished: nullable(BOOLEAN),
    energy: nullable(ref('EnergyRating')),
    greenHouseGas: nullable(ref('EnergyRating')),
    features: STRINGS,
    pictures: arrayOf({ type: 'string', format: 'uri' }, 'Hosted copies'),
    picturesRemote: arrayOf({ type: 'string', format: 'uri' }, 'Addresses at the publisher'),
    virtualTour: nullable({ type: 'string', format: 'uri' }),
    contact: { ...nullable(ref('AdvertContact')), description: 'null when the search hides contacts (`hidePropertyContact`)' },
    publisher: ref('AdvertPublisher'),
    events: arrayOf(ref('AdvertEvent')),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    lastCrawledAt: DATE_TIME,
    site: STRING,
    siteCategory: STRING,
    expired: BOOLEAN,
    expiredAt: nullable(DATE_TIME),
    geoAccuracy: nullable({ type: 'integer', enum: [1, 2], description: 'Precision of the point as the source gave it: 1 house number, 2 neighbourhood' }),
  },
  { description: 'One advert of the property, as its source showed it' },
);

const cityRef = objectSchema<CityRef>({ code: STRING, id: INTEGER, name: STRING });

const city = objectSchema<City>(
  {
    id: { type: 'integer', description: 'Stable, derived from the INSEE code (Corsica 2Annn → 201000 + nnn, 2Bnnn → 202000 + nnn)' },
    cityParentId: nullable({ type: 'integer', description: 'The commune of a municipal arrondissement' }),
    name: { type: 'string', description: 'Official name without its article' },
    originalName: { type: 'string', description: 'Official name, article included' },
    insee: STRING,
    zipcode: nullable(STRING),
    open: BOOLEAN,
    hasGroupedByName: BOOLEAN,
    hasGroupedByZipcode: BOOLEAN,
    groupedCityNames: STRINGS,
    groupedCityZipcodes: STRINGS,
    country: ref('CodeRef'),
    department: ref('CodeRef'),
    region: ref('CodeRef'),
    locations: nullable(ref('GeoPoint')),
  },
  { description: 'A commune or a municipal arrondissement (Paris, Lyon, Marseille)' },
);

const stationLine = objectSchema<StationLine>({
  id: INTEGER,
  name: STRING,
  number: STRING,
  color: { type: 'string', pattern: '^#[0-9A-Fa-f]{6}$', examples: ['#FFCD00'] },
  routeName: STRING,
});

const station = objectSchema<Station>({ id: INTEGER, name: STRING, lines: arrayOf(ref('StationLine')) });

const propertyDocument = objectSchema<PropertyDocument>(
  {
    ...jsonLd('/contexts/PropertyDocument', 'PropertyDocument', '/documents/properties/0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'),
    uuid: UUID,
    property: { type: 'string', examples: ['/properties/0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'] },
    adverts: arrayOf(ref('Advert')),
    title: STRING,
    description: STRING,
    propertyType: PROPERTY_TYPE,
    transactionType: TRANSACTION_TYPE,
    publisherTypes: arrayOf(PUBLISHER_TYPE, 'Distinct, ascending'),
    price: NUMBER,
    pricePerMeter: nullable(NUMBER),
    surface: nullable(NUMBER),
    landSurface: nullable(NUMBER),
    room: nullable(INTEGER),
    bedroom: nullable(INTEGER),
    floor: nullable(INTEGER),
    elevator: nullable(BOOLEAN),
    furnished: nullable(BOOLEAN),
    expired: { type: 'boolean', description: 'True when every advert is expired' },
    expiredAt: nullable(DATE_TIME),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    lastCrawledAt: DATE_TIME,
    lastCrawledAdvert: STRING,
    locations: nullable(ref('GeoPoint')),
    pictures: arrayOf({ type: 'string', format: 'uri' }),
    city: nullable(ref('City')),
    stations: arrayOf(ref('Station'), 'Transit stations within 1 km'),
  },
  {
    description:
      'The adverts of one good, grouped. Top-level fields come from the most recently crawled non-expired advert. ' +
      'Fields the source did not show are null, never absent.',
  },
);

// ---------------------------------------------------------------------------------------------
// Geo resources (shapes built in apps/geo/src/domain/city-model.ts and points-of-interest.ts).

const cityParent: JsonSchema = {
  type: 'object',
  required: ['@id', '@type', 'zipcode', 'insee', 'article', 'name', 'libelle'],
  properties: {
    '@id': { type: 'string', examples: ['/cities/69123'] },
    '@type': { type: 'string', const: 'City' },
    zipcode: nullable(STRING),
    insee: STRING,
    article: STRING,
    name: nullable(STRING),
    libelle: nullable(STRING),
  },
};

const cityListItem: JsonSchema = {
  type: 'object',
  description: 'A city as `GET /cities` lists it',
  required: ['@id', '@type', 'zipcode', 'insee', 'article', 'name', 'libelle', 'department', 'cityParent', 'originalName', 'latitude', 'longitude'],
  properties: {
    '@id': { type: 'string', examples: ['/cities/69383'] },
    '@type': { type: 'string', const: 'City' },
    zipcode: nullable(STRING),
    insee: STRING,
    article: { type: 'string', description: '`le`, `la`, `les`, `l\'`, `aux`, `las`, `los` or empty' },
    name: { type: 'string', description: 'Official name without its article' },
    libelle: { type: 'string', examples: ['Paris 15e Arrondissement (75015)'] },
    department: { type: 'string', description: 'Department IRI', examples: ['/departments/69'] },
    cityParent: nullable(ref('CityParent')),
    originalName: STRING,
    latitude: nullable({ type: 'number', minimum: -90, maximum: 90, description: "The city's point (town centre); null when none is known" }),
    longitude: nullable({ type: 'number', minimum: -180, maximum: 180 }),
  },
};

/** `GET /cities/{id}`: the list item's fields, then the City's that do not collide with them. */
const { department: _department, name: _name, insee: _insee, zipcode: _zipcode, originalName: _originalName, ...richerCityFields } = city['properties'] as Described<City>;
const cityResourceProperties = { '@context': { type: 'string', const: '/contexts/City' }, ...(cityListItem['properties'] as Record<string, JsonSchema>), ...richerCityFields };
const cityResource: JsonSchema = {
  type: 'object',
  description: 'A city (`GET /cities/{id}`): the shape of a `GET /cities` item, with the City fields that do not collide with it',
  required: Object.keys(cityResourceProperties),
  properties: cityResourceProperties,
};

const department: JsonSchema = {
  type: 'object',
  description: 'A department (`GET /departments/{id}`, and without `@context` as a `GET /departments` item)',
  required: ['@id', '@type', 'departmentCode', 'name', 'nameClean', 'chefLieu', 'id', 'code', 'article', 'region', 'chefLieuInsee', 'chefLieuCityId', 'location', 'population'],
  properties: {
    ...jsonLd('/contexts/Department', 'Department', '/departments/69'),
    departmentCode: { type: 'string', examples: ['69', '2A', '971'] },
    nameClean: { type: 'string', description: 'The name as a slug', examples: ['cotes-d-armor'] },
    chefLieu: nullable({ type: 'string', description: "IRI of the chef-lieu's city", examples: ['/cities/69123'] }),
    id: { type: 'integer', description: 'The code as a number (2A → 201, 2B → 202)' },
    code: { type: 'string', examples: ['69', '2A', '971'] },
    name: STRING,
    article: STRING,
    region: ref('CodeRef'),
    chefLieuInsee: STRING,
    chefLieuCityId: nullable(INTEGER),
    location: nullable(ref('GeoPoint')),
    population: INTEGER,
  },
};

const locationSuggestion: JsonSchema = {
  type: 'object',
  description: 'A city or a department matching an autocomplete term',
  required: ['@id', '@type', 'code', 'displayName', 'groupedCityNames', 'groupedCityZipcodes', 'id', 'insee', 'libelle', 'location', 'name', 'zipcode'],
  properties: {
    '@id': { type: 'string', examples: ['/cities/42218', '/departments/42'] },
    '@type': { type: 'string', enum: ['City', 'Department'] },
    code: { type: 'string', description: 'INSEE code of a city, code of a department' },
    displayName: { type: 'string', examples: ['Saint-Étienne (42)'] },
    groupedCityNames: STRINGS,
    groupedCityZipcodes: STRINGS,
    id: STRING,
    insee: nullable({ type: 'string', description: 'null for a department' }),
    libelle: STRING,
    location: nullable(ref('GeoPoint')),
    name: STRING,
    zipcode: nullable({ type: 'string', description: "The city's first postal code; null for a department" }),
  },
};

const pointOfInterest: JsonSchema = {
  type: 'object',
  description: 'SYNTHETIC unless the operator loaded a real extract',
  required: ['lat', 'lon', 'name', 'type', 'attributes'],
  properties: {
    lat: NUMBER,
    lon: NUMBER,
    name: nullable(STRING),
    type: { type: 'string', enum: [...FACILITY_CATEGORIES] },
    attributes: {
      description: 'School attributes (either key may be absent), an empty array for other facilities',
      anyOf: [
        {
          type: 'object',
          properties: {
            schoolType: { type: 'string', enum: ['maternelle', 'élémentaire', 'primaire', 'collège', 'lycée', 'secondaire'] },
            operatorType: { type: 'string', enum: ['public', 'private'] },
          },
        },
        { type: 'array', maxItems: 0 },
      ],
    },
  },
};

const pricePerMeter = objectSchema<PricePerMeterReply & { '@type': string }>(
  {
    '@type': { type: 'string', const: 'PricePerMeter' },
    average: nullable({ type: 'number', description: 'Mean price per m² of the matching properties' }),
    average_min: nullable({ type: 'number', description: 'Mean of `average` and the lowest value' }),
    average_max: nullable({ type: 'number', description: 'Mean of `average` and the highest value' }),
    median: nullable(NUMBER),
    series: {
      type: 'object',
      description: 'Mean per month (`YYYY-MM`) or year (`YYYY`) of creation, Paris time',
      propertyNames: { pattern: '^[0-9]{4}(-[0-9]{2})?$' },
      additionalProperties: NUMBER,
    },
  },
  { description: 'Price per m² statistic; all null and an empty series when nothing matches. Rounded to the cent.' },
);

// ---------------------------------------------------------------------------------------------
// Hydra and errors.

type Collection = HydraCollection<unknown>;
const hydraCollection = objectSchema<Collection>(
  {
    '@context': STRING,
    '@id': STRING,
    '@type': { type: 'string', const: 'hydra:Collection' },
    'hydra:member': arrayOf({}),
    'hydra:totalItems': { type: 'integer', description: 'Over all pages' },
    'hydra:view': ref('HydraView'),
    'hydra:search': ref('HydraSearch'),
  },
  {
    optional: ['hydra:view', 'hydra:search'],
    description: 'The envelope of every collection (API Platform layout); paged collections link their pages in `hydra:view` and describe their parameters in `hydra:search`',
  },
);

const hydraView: JsonSchema = {
  type: 'object',
  required: ['@id', '@type'],
  properties: {
    '@id': { type: 'string', description: 'This page' },
    '@type': { type: 'string', const: 'hydra:PartialCollectionView' },
    'hydra:first': STRING,
    'hydra:last': STRING,
    'hydra:previous': { type: 'string', description: 'Absent on the first page' },
    'hydra:next': { type: 'string', description: 'Absent on the last page' },
  },
};

type IriTemplate = Collection['hydra:search'];
const hydraSearch = objectSchema<IriTemplate>({
  '@type': { type: 'string', const: 'hydra:IriTemplate' },
  'hydra:template': { type: 'string', examples: ['/cities{?insee,zipcode,page}'] },
  'hydra:variableRepresentation': { type: 'string', const: 'BasicRepresentation' },
  'hydra:mapping': arrayOf(
    objectSchema<IriTemplate['hydra:mapping'][number]>({
      '@type': { type: 'string', const: 'IriTemplateMapping' },
      variable: STRING,
      property: nullable(STRING),
      required: BOOLEAN,
    }),
  ),
});

const problem = objectSchema<ProblemBody>(
  {
    '@context': { type: 'string', const: '/contexts/Error' },
    '@type': { type: 'string', const: 'hydra:Error' },
    'hydra:title': STRING,
    'hydra:description': STRING,
    type: { type: 'string', examples: ['/errors/400'] },
    title: { type: 'string', examples: ['An error occurred'] },
    status: INTEGER,
    detail: STRING,
    violations: arrayOf(ref('Violation'), 'One per rejected parameter or field; absent when the error is not about input'),
  },
  { optional: ['violations'], description: "API Platform's Hydra error with the RFC 7807 fields (`application/problem+json`)" },
);

// ---------------------------------------------------------------------------------------------
// Saved searches: the criteria are the parameters of GET /documents/properties, as the criteria
// library describes them, less paging and order.

const NOT_CRITERIA = /^(page|itemsPerPage|order\[.*\])$/;
const LIST_SUFFIX = '[]';

/** Relations may also be sent as the objects a stored search holds (what a client read back). */
const RELATION_KEYS: Readonly<Record<string, string>> = {
  includedCities: '@id',
  excludedCities: '@id',
  includedDepartments: '@id',
  includedSiteCategories: 'name',
  excludedSiteCategories: 'name',
};

function searchCriteriaProperties(): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const parameter of describeParameters('properties')) {
    // A saved search holds each criterion under its main name only (see search-body.ts).
    if (NOT_CRITERIA.test(parameter.name) || Object.hasOwn(PARAMETER_ALIASES, parameter.name)) continue;
    const isList = parameter.name.endsWith(LIST_SUFFIX);
    const name = isList ? parameter.name.slice(0, -LIST_SUFFIX.length) : parameter.name;
    if (!isList) {
      properties[name] =
        name === 'expressions'
          ? { description: `${parameter.description} Also one query-string text: \`expressions[0][0][word]=jardin&…\`.`, anyOf: [parameter.schema, STRING] }
          : { ...parameter.schema, description: parameter.description };
      continue;
    }
    const value = parameter.schema['items'] as JsonSchema;
    const key = RELATION_KEYS[name];
    const item = key ? { anyOf: [value, { type: 'object', required: [key], properties: { [key]: value } }] } : value;
    properties[name] = {
      description: `${parameter.description} A single value counts as a one-item list.`,
      anyOf: [{ ...parameter.schema, items: item }, item],
    };
  }
  return properties;
}

const WEBHOOK_URL: JsonSchema = {
  type: 'string',
  format: 'uri',
  pattern: '^https://',
  description: 'https:// URL that neither names nor resolves to a private, loopback, link-local, CGNAT, multicast or unique-local address',
};

const SEARCH_CRITERIA = searchCriteriaProperties();

const searchInputProperties: Record<string, JsonSchema> = {
  title: { type: 'string', minLength: 1, maxLength: 200 },
  ...SEARCH_CRITERIA,
  includedZipcodesInsee: {
    ...SEARCH_CRITERIA['includedInseeCodes'],
    description:
      "Commune INSEE codes (the original service's field), selecting as `includedInseeCodes` does: a property in one of these communes, " +
      'in union with the other included places. A single value counts as a one-item list.',
  },
  initiatedFromDashboard: { type: 'boolean', default: false, description: 'Whether the search was made from a dashboard (stored, and a filter of `GET /searches`)' },
  notificationEnabled: { type: 'boolean', default: false, description: 'Needs `endpointRecipient` or `eventEndpoint`' },
  endpointRecipient: nullable({ ...WEBHOOK_URL, description: `Receives each new Match (webhook \`match\`). ${String(WEBHOOK_URL['description'])}` }),
  eventEndpoint: nullable({ ...WEBHOOK_URL, description: `Receives the advert events of \`subscribedEvents\`. ${String(WEBHOOK_URL['description'])}` }),
  subscribedEvents: arrayOf({ type: 'string', enum: [...ADVERT_WEBHOOK_KINDS] }, 'Event kinds sent to `eventEndpoint`'),
  notificationRecipient: nullable({ type: 'string', format: 'email', maxLength: 254 }),
  hidePropertyContact: nullable({ type: 'boolean', description: "Removes the adverts' contact from every webhook payload" }),
};

const searchInput: JsonSchema = {
  type: 'object',
  description:
    'A saved search: its criteria (any filter of `GET /documents/properties` but paging and order, validated the same way) and ' +
    'its notifications. Unknown fields are refused (400 naming them); the fields the server writes (`@id`, `token`, `createdAt`…) ' +
    'may be sent back and are ignored. An update keeps the stored value of every field it leaves out; `null` resets a field. At most 64 KiB.',
  required: ['title', 'transactionType', 'propertyTypes'],
  properties: searchInputProperties,
};

/** A JSON merge patch of a Search (RFC 7396): any field, `null` to reset one to its default. */
const searchPatch: JsonSchema = {
  type: 'object',
  description:
    'Fields to change: each one given replaces the stored value (an object merges into the stored object), `null` resets it to its default, ' +
    'a field left out keeps its value. The merged search must be valid as a whole.',
  properties: Object.fromEntries(Object.entries(searchInputProperties).map(([name, schema]) => [name, nullable(schema)])),
};
const cityRelation = objectSchema<CityRelation>({
  ...jsonLd('/contexts/City', 'City', '/cities/75056'),
  article: STRING,
  insee: STRING,
  libelle: STRING,
  name: STRING,
  zipcode: nullable(STRING),
});

const departmentRelation = objectSchema<DepartmentRelation>({
  ...jsonLd('/contexts/Department', 'Department', '/departments/69'),
  chefLieu: nullable(STRING),
  departmentCode: STRING,
  name: STRING,
  nameClean: STRING,
});

const siteCategoryRelation = objectSchema<SiteCategoryRelation>(
  {
    ...jsonLd('/contexts/SiteCategory', 'SiteCategory', '/site_categories/portal'),
    name: { type: 'string', description: 'The category, as adverts name it', examples: ['portal', 'agency-network'] },
  },
  { optional: ['@context'], description: 'A category of the sites adverts come from; `@context` is absent in a collection' },
);

/** What a stored search shows of each field sent; criteria of the original's resource show unset as `[]` or `null`. */
const searchRecordProperties: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(searchInputProperties).map(([name, schema]) => [name, (SEARCH_RECORD_VALUES as readonly string[]).includes(name) ? nullable(schema) : schema]),
);
/** The fields every stored search shows, set or not (see `SEARCH_RECORD_LISTS`). */
const ALWAYS_SHOWN = [
  ...[...SEARCH_RECORD_LISTS, ...SEARCH_RECORD_VALUES].filter((name) => name in searchInputProperties),
  'title',
  'transactionType',
  'propertyTypes',
  'withCoherentPrice',
  'includedCities',
  'excludedCities',
  'includedDepartments',
  'includedSiteCategories',
  'excludedSiteCategories',
  'includedZipcodesInsee',
  'initiatedFromDashboard',
  'hidePropertyContact',
  'notificationEnabled',
  'endpointRecipient',
  'eventEndpoint',
  'subscribedEvents',
  'notificationRecipient',
];

const search: JsonSchema = {
  type: 'object',
  description:
    'A stored search: the fields as they were sent (numbers and lists keep the types they were sent with), relations as ' +
    "objects, and what the server writes. Every field of the original service's Search resource is present: `[]` or `null` when unset.",
  required: ['@context', '@id', '@type', 'id', ...ALWAYS_SHOWN, 'createdAt', 'updatedAt', 'lastAlertAt', 'token', 'user'],
  properties: {
    ...jsonLd('/contexts/Search', 'Search', '/searches/5f0c1f9e-8a47-4d0b-9a43-3f2d0c1e7b11'),
    id: UUID,
    ...searchRecordProperties,
    includedCities: arrayOf(ref('CityRelation')),
    excludedCities: arrayOf(ref('CityRelation')),
    includedDepartments: arrayOf(ref('DepartmentRelation')),
    includedSiteCategories: arrayOf(ref('SiteCategoryRelation')),
    excludedSiteCategories: arrayOf(ref('SiteCategoryRelation')),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    lastAlertAt: { ...nullable(DATE_TIME), description: 'When the search last notified (Paris time)' },
    token: { type: 'string', description: 'Authorises `POST /public/search/disable-notifications` (the unsubscribe link)' },
    user: { type: 'string', examples: ['/users/5f0c1f9e-8a47-4d0b-9a43-3f2d0c1e7b11'] },
    platformOrigin: { type: 'string', description: 'The `platformorigin` request header of the last write, when one was sent' },
  },
};

// ---------------------------------------------------------------------------------------------
// Alerts (libs/contracts/src/alerts/alert-notifications.ts).

const MATCH_IRI: JsonSchema = { type: 'string', examples: ['/matches/7d7a3c52-2b61-4b0c-9e0f-0d4b8f1b9a10'] };

const matchFields = (document: JsonSchema): Described<MatchPayload> => ({
  '@context': { type: 'string', const: '/contexts/Match' },
  '@id': MATCH_IRI,
  '@type': { type: 'string', const: 'Match' },
  property: { type: 'string', description: 'Property document IRI', examples: ['/documents/properties/0b6f7a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'] },
  search: { type: 'string', description: 'Search IRI' },
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
  propertyDocument: document,
});

/** Spec (City): in webhook payloads the city's point is under `location` (`webhookPropertyDocument`). */
const { locations: _cityLocations, ...cityFields } = city['properties'] as Described<City>;
const webhookCity = objectSchema<WebhookCity>(
  { ...cityFields, location: nullable(ref('GeoPoint')) },
  { description: 'A City as webhooks carry it: its point under `location`, as the spec has it' },
);
const webhookPropertyDocument = objectSchema<WebhookPropertyDocument>(
  { ...(propertyDocument['properties'] as Described<PropertyDocument>), city: nullable(ref('WebhookCity')) },
  { description: 'The PropertyDocument as webhooks and the live stream carry it: the city in its webhook form; adverts without contact when the search hides it' },
);

const matchPayload = objectSchema<MatchPayload>(matchFields(ref('WebhookPropertyDocument')), {
  description: 'A property that newly meets a search: sent alone to `endpointRecipient`, and inside every Event payload',
});

/** The gateway replaces a list item's `propertyId` with the document, when asked (match-resources.ts). */
type ListedMatch = Omit<MatchListItem, 'propertyId'> & { propertyDocument?: PropertyDocument | null };
const match = objectSchema<ListedMatch>(
  {
    ...matchFields({
      ...nullable(ref('PropertyDocument')),
      description: 'Always on `GET /searches/{id}/matches`, with `withPropertyDocument=true` on `/matches`; null when listings no longer knows the property',
    }),
    id: UUID,
  },
  { optional: ['propertyDocument'], description: 'A property that newly met one of the saved searches' },
);

const adEvent: JsonSchema = {
  ...fromZod(advertWebhookEventSchema.shape.adEvent.unwrap()),
  description:
    'The change, every field a string. A creation names `createdAt`; a change of fields without a history names them, with empty old and new values.',
};

const eventPayload = objectSchema<EventPayload>(
  { event: { type: 'string', enum: [...ADVERT_WEBHOOK_KINDS] }, adEvent: ref('AdEvent'), match: ref('MatchPayload') },
  { description: 'An advert event of a property that meets a search: sent to `eventEndpoint` for the kinds in `subscribedEvents`' },
);

const deliveryAttempt = objectSchema<DeliveryAttempt>({
  at: DATE_TIME,
  statusCode: nullable({ type: 'integer', description: "The receiver's status (HTTP; for an e-mail, the SMTP server's reply code); null when none came back (refused, timed out, unreachable)" }),
  durationMs: NUMBER,
  error: nullable(STRING),
});

const delivery = objectSchema<DeliveryView & { '@context': string; '@id': string; '@type': string }>(
  {
    ...jsonLd('/contexts/Delivery', 'Delivery', '/searches/5f0c1f9e-8a47-4d0b-9a43-3f2d0c1e7b11/deliveries/4b1e0c2d-3f4a-4b5c-8d6e-7f8091a2b3c4'),
    id: { ...UUID, description: 'The `webhook-id` header every attempt sent (an e-mail: its `Message-ID`)' },
    searchId: UUID,
    channel: { type: 'string', enum: ['webhook', 'email'], description: '`webhook`: one notification POSTed to `endpoint`; `email`: an e-mail to `endpoint` (`mailto:…`) listing `notifications`' },
    kind: { type: 'string', enum: [...NOTIFICATION_KINDS], description: '`match` for a Match payload, an event kind for an Event payload (an e-mail: the kind of its first notification)' },
    endpoint: { type: 'string', format: 'uri' },
    notifications: { type: 'array', items: UUID, description: 'The notifications an e-mail lists; for a webhook, its own id' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    createdAt: DATE_TIME,
    nextAttemptAt: { ...nullable(DATE_TIME), description: 'When the next attempt is due (pending only; Paris time)' },
    attempts: arrayOf(ref('DeliveryAttempt')),
  },
  { description: 'One webhook delivery, or one alert e-mail, and its attempts' },
);

const webhookSecret = objectSchema<WebhookSecretView>({ secret: { type: 'string', pattern: '^whsec_', description: 'Standard Webhooks secret (`whsec_` and base64)' } });

const webhookTestResult = objectSchema<WebhookTestResult>({
  success: { type: 'boolean', description: 'The receiver answered 200' },
  code: nullable(INTEGER),
  error: nullable(STRING),
  durationMs: NUMBER,
  webhookId: UUID,
});

const webhookDryRun = objectSchema<WebhookDryRun>({
  dryRun: { type: 'boolean', const: true },
  endpoint: { type: 'string', format: 'uri' },
  headers: { type: 'object', additionalProperties: STRING, description: 'Content type, user agent and the Standard Webhooks headers' },
  payload: { anyOf: [ref('MatchPayload'), ref('EventPayload')] },
});

// ---------------------------------------------------------------------------------------------
// Ingestion and administration.

type AcceptedItem = Extract<IngestItemResult, { status: 'accepted' }>;
type RejectedItem = Extract<IngestItemResult, { status: 'rejected' }>;

const ingestResult = objectSchema<IngestAdvertsReply>({
  accepted: INTEGER,
  rejected: INTEGER,
  unchanged: { type: 'integer', description: 'Accepted snapshots that appended no event' },
  results: arrayOf({
    oneOf: [
      objectSchema<AcceptedItem>({
        index: INTEGER,
        status: { type: 'string', const: 'accepted' },
        advertId: UUID,
        propertyId: nullable(UUID),
        events: arrayOf(STRING, 'Event types appended; empty when the snapshot changed nothing'),
        warnings: STRINGS,
      }),
      objectSchema<RejectedItem>({
        index: INTEGER,
        status: { type: 'string', const: 'rejected' },
        advertId: nullable(UUID),
        violations: arrayOf(ref('Violation')),
      }),
    ],
  }),
});

const projectionStatus = objectSchema<ProjectionStatusReply>({
  checkpoint: nullable({ type: 'integer', description: 'Position of the last event the property projection applied' }),
  properties: INTEGER,
  adverts: INTEGER,
  lastAppended: nullable(INTEGER),
  outboxPending: { type: 'integer', description: 'Integration events committed, not yet acknowledged by JetStream' },
  outboxDeadLetters: INTEGER,
  leadsIngestion: BOOLEAN,
  process: objectSchema<ProjectionStatusReply['process']>({
    rssBytes: INTEGER,
    heapUsedBytes: INTEGER,
    heapTotalBytes: INTEGER,
    externalBytes: INTEGER,
    eventLoopDelayMaxMs: NUMBER,
    eventLoopDelayP99Ms: NUMBER,
    gcPauseMaxMs: NUMBER,
    gcPauseMaxKind: nullable({ type: 'string', enum: ['minor', 'major', 'incremental', 'weakcb'] }),
  }),
});

const API_KEY: JsonSchema = { type: 'string', description: 'Shown this once: only its digest is stored', examples: ['imk_0123456789ab_…'] };
const KEY_ID: JsonSchema = { type: 'string', pattern: '^[0-9a-f]{12}$' };

const accountKey = objectSchema<AccountKeySummary>({ keyId: KEY_ID, createdAt: DATE_TIME, revokedAt: nullable(DATE_TIME) });
const account = objectSchema<AccountSummary>({ id: UUID, name: STRING, createdAt: DATE_TIME, keys: arrayOf(ref('AccountKey')) });
const createdAccount = objectSchema<CreatedAccount>({ id: UUID, name: STRING, createdAt: DATE_TIME, keyId: KEY_ID, apiKey: API_KEY });
const issuedKey = objectSchema<IssuedKey>({ keyId: KEY_ID, apiKey: API_KEY });

const entrypointExample = new EntrypointController().entrypoint();
const entrypoint: JsonSchema = {
  type: 'object',
  description: 'Where each resource collection lives',
  required: Object.keys(entrypointExample),
  properties: Object.fromEntries(Object.entries(entrypointExample).map(([name, value]) => [name, { type: 'string', examples: [value] }])),
};

const healthCheck: JsonSchema = {
  type: 'object',
  description: 'Terminus health check: NATS and each service (geo, listings, notifier, searches) with its stores',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['ok', 'error', 'shutting_down'] },
    info: { type: 'object', additionalProperties: ref('HealthIndicator') },
    error: { type: 'object', additionalProperties: ref('HealthIndicator') },
    details: { type: 'object', additionalProperties: ref('HealthIndicator') },
  },
};

const healthIndicator: JsonSchema = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['up', 'down'] },
    message: { type: 'string', examples: ['no instance is answering'] },
    instance: { type: 'string', description: 'The replica of the service that answered the ping' },
    stores: { type: 'object', additionalProperties: { type: 'string', enum: ['up', 'down'] } },
    replicas: { type: 'object', description: 'Every replica of the service that answered the roll call, by instance', additionalProperties: { type: 'string', enum: ['ready', 'not ready'] } },
    server: { type: 'string', description: 'The NATS server the gateway is connected to (the `nats` check)', examples: ['nats://127.0.0.1:4222'] },
  },
};

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  PropertyDocument: propertyDocument,
  WebhookPropertyDocument: webhookPropertyDocument,
  WebhookCity: webhookCity,
  Advert: advert,
  AdvertEvent: advertEvent,
  AdvertContact: advertContact,
  AdvertPublisher: advertPublisher,
  EnergyRating: energyRating,
  City: city,
  CityResource: cityResource,
  CodeRef: cityRef,
  GeoPoint: geoPoint,
  Station: station,
  StationLine: stationLine,
  CityListItem: cityListItem,
  CityParent: cityParent,
  Department: department,
  LocationSuggestion: locationSuggestion,
  PointOfInterest: pointOfInterest,
  PricePerMeter: pricePerMeter,
  HydraCollection: hydraCollection,
  HydraView: hydraView,
  HydraSearch: hydraSearch,
  Problem: problem,
  Violation: fromZod(violationSchema),
  SearchInput: searchInput,
  SearchPatch: searchPatch,
  Search: search,
  CityRelation: cityRelation,
  DepartmentRelation: departmentRelation,
  SiteCategoryRelation: siteCategoryRelation,
  Match: match,
  MatchPayload: matchPayload,
  EventPayload: eventPayload,
  AdEvent: adEvent,
  Delivery: delivery,
  DeliveryAttempt: deliveryAttempt,
  WebhookSecret: webhookSecret,
  WebhookTestResult: webhookTestResult,
  WebhookDryRun: webhookDryRun,
  AdvertSnapshot: { ...fromZod(advertSnapshotSchema), description: 'What a crawler saw of one advert at one time (identity: `site` + `reference`, or `url`)' },
  IngestResult: ingestResult,
  ProjectionStatus: projectionStatus,
  Account: account,
  AccountKey: accountKey,
  CreateAccountRequest: fromZod(createAccountRequestSchema),
  CreatedAccount: createdAccount,
  IssuedKey: issuedKey,
  UnsubscribeRequest: fromZod(disableNotificationsRequestSchema),
  UnsubscribeResult: { type: 'object', required: ['success'], properties: { success: BOOLEAN } },
  Entrypoint: entrypoint,
  HealthCheck: healthCheck,
  HealthIndicator: healthIndicator,
};

/** A Hydra collection whose members are `member` (a component name). */
export function collectionOf(member: string): JsonSchema {
  return { allOf: [ref('HydraCollection'), { type: 'object', properties: { 'hydra:member': arrayOf(ref(member)) } }] };
}
