import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADVERT_WEBHOOK_KINDS, MAX_INGEST_BATCH, MAX_POI_RADIUS_KM } from '@immo/contracts';
import { DEFAULT_ITEMS_PER_PAGE, DEFAULT_ORDER, MAX_ITEMS_PER_PAGE, SIMILARITY, describeParameters } from '@immo/property-criteria';
import { MERGE_PATCH_CONTENT_TYPE } from '../http/json-bodies';
import { IGNORED_PARAMETERS_HEADER } from '../listings/property-pages';
import { matchesQuerySchema, matchQuerySchema } from '../alerts/matches-query-schema';
import { autocompleteQuerySchema, citiesQuerySchema, departmentCitiesQuerySchema, departmentsQuerySchema, pointsOfInterestQuerySchema } from '../geo/geo-query-schemas';
import { siteCategoriesQuerySchema } from '../listings/site-categories.controller';
import { collectionOf } from './component-schemas';
import { DOCS_ASSET_NAMES, DOCS_ASSETS_PATH, DOCS_PATH, OPENAPI_JSON_ALIAS, OPENAPI_JSON_PATH } from './docs-page';
import { ref, UUID } from './json-schema';
import type { ApiDescription, OperationSpec, QueryParameterSpec } from './openapi-document';

const DEFAULT_ORDER_TEXT = DEFAULT_ORDER.map((clause) => `order[${clause.field}]=${clause.direction}`).join('&');

/** The documented snapshot example ships with the contracts (its `$comment` explains the fields). */
function snapshotExample(): unknown {
  try {
    const path = join(__dirname, '..', '..', '..', '..', 'libs', 'contracts', 'src', 'listings', 'advert-snapshot.example.json');
    const example = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    delete example['$comment'];
    return [example];
  } catch {
    return undefined;
  }
}

const SEARCH_ID = { description: 'Search UUID', schema: UUID };
const PROPERTY_ID = { description: 'Property UUID', schema: UUID };
const PAGE: QueryParameterSpec = { name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1, default: 1 } };
const CITY_ID = { description: 'City id (stable, derived from the INSEE code)', schema: { type: 'integer', minimum: 1, maximum: 999_999_999 } };
const DEPARTMENT_ID = { description: 'Department id: the code as a number (2A → 201, 2B → 202)', schema: { type: 'integer', minimum: 1, maximum: 999_999_999 } };
const PLATFORM_ORIGIN = { platformorigin: { description: 'Where the write comes from (an app, a site); stored on the search, at most 200 characters', schema: { type: 'string', maxLength: 200 } } };
const IGNORED = { sharedHeaders: [IGNORED_PARAMETERS_HEADER] };
const DOCS_ROUTE = { tag: 'docs', public: true, upstream: false, ownMediaType: true } as const;
const ADMIN = { adminOnly: true } as const;

/** A saved search as a client would write it: the docs page shows it rather than every optional field. */
export const SEARCH_EXAMPLE = {
  title: 'Flats in Lyon under 300,000 €',
  transactionType: 0,
  propertyTypes: [0],
  budgetMax: 300000,
  surfaceMin: 40,
  includedCities: ['/cities/69123'],
  notificationEnabled: true,
  endpointRecipient: 'https://alerts.example.com/webhooks/matches',
  eventEndpoint: 'https://alerts.example.com/webhooks/events',
  subscribedEvents: ['ad.update.price', 'ad.update.expired'],
};

const SEARCH_UPDATE_TEXT =
  'The fields sent are laid over the stored search and the result is validated as a whole, as a creation is: a refused update ' +
  '(400 naming each bad field) changes nothing. Two updates at once both keep their fields (the second is laid over the first).';
const SEARCH_UPDATE_RESPONSES = {
  '200': { description: 'The updated Search', schema: ref('Search') },
  '400': 'Invalid fields (of the merged search) or malformed UUID',
  '404': 'Unknown search',
  '409': 'The search kept changing while this update was made; read it again and retry',
  '413': 'Body over 64 KiB',
};

/** `order[<field>]` of the property collection, as the criteria library describes it. */
const PROPERTY_ORDER = describeParameters('properties').filter((parameter) => parameter.name.startsWith('order['));

/** Tags in the order the docs page shows them. */
export const API_TAGS = [
  { name: 'properties', description: 'Property documents: the adverts of one good, grouped, searched with ~90 filters' },
  { name: 'indicators', description: 'Market indicators and points of interest' },
  { name: 'geo', description: 'Cities (communes and municipal arrondissements), departments, location autocomplete and site categories' },
  { name: 'searches', description: 'Saved searches of the calling account, and the unsubscribe link' },
  { name: 'alerts', description: 'Matches, webhook deliveries, their live stream, the signing secret and the tester; the payloads are under Webhooks' },
  { name: 'accounts', description: 'Accounts and their API keys (admin key)' },
  { name: 'ingestion', description: 'Advert snapshots from crawlers and the property read models (admin key)' },
  { name: 'entrypoint', description: 'Where each collection lives' },
  { name: 'health', description: 'Liveness and readiness probes, and metrics (no key)' },
  { name: 'docs', description: 'This reference: the page, its assets and the OpenAPI document (no key)' },
  { name: 'webhooks', description: 'What the service POSTs to a saved search\'s endpoints, signed per Standard Webhooks' },
];

/** Every HTTP operation the gateway serves, for the OpenAPI document. */
export const API_OPERATIONS: OperationSpec[] = [
  {
    method: 'get',
    path: '/health/live',
    tag: 'health',
    summary: 'Liveness: the process answers',
    responses: { '200': { description: 'Alive', schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } } } },
    public: true,
    upstream: false,
    ownMediaType: true,
  },
  {
    method: 'get',
    path: '/health/ready',
    tag: 'health',
    summary: 'Readiness: NATS connected and every service answering a ping within 1 s with its stores ready',
    responses: {
      '200': { description: 'Ready', schema: ref('HealthCheck') },
      '503': { description: 'Not ready; `details` names what failed', schema: ref('HealthCheck'), contentType: 'application/json' },
    },
    public: true,
    upstream: false,
    ownMediaType: true,
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'health',
    summary: 'Prometheus metrics of this gateway process (scraped inside the cluster)',
    responses: { '200': { description: 'Prometheus text exposition format', contentType: 'text/plain', schema: { type: 'string' } } },
    public: true,
    upstream: false,
    ownMediaType: true,
  },
  {
    method: 'get',
    path: '/',
    tag: 'entrypoint',
    summary: 'Entry point listing the resource collections',
    responses: { '200': { description: 'Entry point', schema: ref('Entrypoint') } },
    upstream: false,
  },
  {
    method: 'get',
    path: '/cities',
    tag: 'geo',
    summary: 'Cities (communes and the municipal arrondissements of Paris, Lyon and Marseille), 30 a page, by name',
    description: 'Filters combine with AND. Answers a Hydra collection of City list items; a parameter not listed here is ignored and named in `X-Ignored-Parameters`.',
    query: citiesQuerySchema,
    queryDescriptions: {
      excludeGroupedCities: 'Leave out the cities that group others (Paris, Lyon, Marseille), so a postal code yields the arrondissement alone',
      'insee[]': 'INSEE codes (`insee=69123` for one)',
      'zipcode[]': 'Postal codes (`zipcode=75015` for one); a city matches any of its postal codes',
      polygon: 'Cities whose point lies inside the polygon, written `polygon[<i>][lat]=…&polygon[<i>][lon]=…`, at least 3 points',
      libelle: 'Part of the label `<name> (<zipcode>)`, insensitive to case and accents',
      name: 'The name, with or without its article (`Le Havre`, `havre`), insensitive to case and accents',
      slug: 'The slug of the official name (`saint-etienne`)',
      'order[name]': 'By name without article (digits compared as numbers); default asc',
      page: 'Page, from 1',
    },
    responses: { '200': { description: 'Hydra collection of City list items', schema: collectionOf('CityListItem') } },
  },
  {
    method: 'get',
    path: '/cities/:id',
    tag: 'geo',
    summary: 'One city',
    description: 'The shape of a `GET /cities` item (`department` is an IRI), with the other City fields (`id`, `country`, `region`, `locations`…).',
    pathParams: { id: CITY_ID },
    responses: { '200': { description: 'City', schema: ref('CityResource') }, '400': 'Malformed id', '404': 'Unknown city' },
  },
  {
    method: 'get',
    path: '/departments',
    tag: 'geo',
    summary: 'Departments, by code',
    description: 'Filters combine with AND. Answers a Hydra collection of Department (the items without `@context`).',
    query: departmentsQuerySchema,
    queryDescriptions: {
      'code[]': 'Department codes (`code=69` for one; `2A`, `971`)',
      name: 'Part of the name, insensitive to case, accents and punctuation (`cotes d armor`)',
      page: 'Page, from 1',
      itemsPerPage: 'Items per page (default and maximum 30)',
    },
    responses: { '200': { description: 'Hydra collection of Department', schema: collectionOf('Department'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/departments/:id',
    tag: 'geo',
    summary: 'One department',
    pathParams: { id: DEPARTMENT_ID },
    responses: { '200': { description: 'Department', schema: ref('Department') }, '400': 'Malformed id', '404': 'Unknown department' },
  },
  {
    method: 'get',
    path: '/departments/:id/cities',
    tag: 'geo',
    summary: "The department's cities, 30 a page, by name",
    pathParams: { id: DEPARTMENT_ID },
    query: departmentCitiesQuerySchema,
    queryDescriptions: { page: 'Page, from 1' },
    responses: { '200': { description: 'Hydra collection of City list items', schema: collectionOf('CityListItem'), ...IGNORED }, '400': 'Malformed id or page', '404': 'Unknown department' },
  },
  {
    method: 'get',
    path: '/site_categories',
    tag: 'geo',
    summary: 'The categories of the sites adverts come from (the values of `includedSiteCategories`), 30 a page, by name',
    description: 'A category is known by its name and exists while some stored advert comes from a site of it.',
    query: siteCategoriesQuerySchema,
    queryDescriptions: { page: 'Page, from 1' },
    responses: { '200': { description: 'Hydra collection of SiteCategory', schema: collectionOf('SiteCategoryRelation'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/site_categories/:id',
    tag: 'geo',
    summary: 'One site category',
    pathParams: { id: { description: 'The category name (percent-encoded)', schema: { type: 'string', minLength: 1, maxLength: 100 } } },
    responses: { '200': { description: 'SiteCategory', schema: ref('SiteCategoryRelation') }, '404': 'No stored advert comes from a site of this category' },
  },
  {
    method: 'get',
    path: '/public/location-autocomplete',
    tag: 'geo',
    summary: 'Up to 10 cities and departments matching a term (name or postal code prefix); no API key, limited per client address',
    description:
      'Insensitive to accents, case, hyphens and apostrophes; `st` stands for `saint`. Ranked exact match, then prefix, then population. ' +
      '`q` or `query` is required.',
    query: autocompleteQuerySchema,
    queryDescriptions: {
      q: 'The term (or `query`)',
      query: 'The term (or `q`)',
      'excludedCitiesIds[]': 'City IRIs to leave out (`/cities/42218`)',
      'excludedDepartmentsIds[]': 'Department IRIs to leave out (`/departments/42`)',
    },
    responses: {
      '200': { description: '`hydra:member` holds the Location suggestions', schema: collectionOf('LocationSuggestion'), sharedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'] },
      '429': { description: 'More than `PUBLIC_REQUESTS_PER_MINUTE` requests (600 by default, bursts of 60) from this address in a minute', sharedHeaders: ['Retry-After'] },
    },
    public: true,
  },
  {
    method: 'get',
    path: '/indicators/points_of_interest',
    tag: 'indicators',
    summary: 'Points of interest around a point (SYNTHETIC data: generated around communes, scaled by population)',
    description: `All parameters are required; radius is in kilometres, at most ${MAX_POI_RADIUS_KM}. No offline source of real points of interest exists, so these are synthetic unless an operator loads a real extract.`,
    query: pointsOfInterestQuerySchema,
    queryDescriptions: { 'facilities[]': 'Facility categories', lat: 'Latitude of the centre', lon: 'Longitude of the centre', radius: 'Kilometres' },
    responses: { '200': { description: 'Collection of points of interest', schema: collectionOf('PointOfInterest') } },
  },
  {
    method: 'get',
    path: '/documents/properties',
    tag: 'properties',
    summary: 'Search property documents (newest first unless ordered otherwise)',
    description:
      'Each property groups the adverts of one good. Filters combine with AND: property figures and dates, advert-level ' +
      'filters (one advert must satisfy all of them together), source sites, price and surface changes, places (included ' +
      'cities, departments, INSEE codes and postal codes form one union; excluded ones always remove), a radius or drawn ' +
      'shapes, and full-text `expressions`. Every bound is inclusive; an absent or empty parameter filters nothing; a single ' +
      'value counts as a one-item list; booleans are `true`/`false` or `1`/`0`. Properties whose price per m² is implausible ' +
      'are left out unless `withCoherentPrice=false`.\n\n' +
      `Order: \`order[<field>]=asc|desc\`, several keys in the order written, default \`${DEFAULT_ORDER_TEXT}\`; missing values ` +
      `come last, ties by property uuid. Paging: \`page\` from 1, \`itemsPerPage\` default ${DEFAULT_ITEMS_PER_PAGE.properties}, ` +
      `capped at ${MAX_ITEMS_PER_PAGE}, \`0\` for the count only.\n\n` +
      'The answer is a Hydra collection: `hydra:member` holds the page of PropertyDocument, `hydra:totalItems` is the exact ' +
      'number of matching properties over all pages, `hydra:view` links the first, last, previous and next pages, and ' +
      '`hydra:search` is the IRI template of every parameter below.\n\n' +
      'A bad value is refused with 400, `violations` naming each bad parameter as written (`propertyTypes[1]`). An unknown ' +
      `parameter is not an error: it is ignored and named in the \`${IGNORED_PARAMETERS_HEADER}\` response header.`,
    parameters: describeParameters('properties'),
    responses: { '200': { description: 'Hydra collection of PropertyDocument', schema: collectionOf('PropertyDocument'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/documents/properties/:id/similar-properties',
    tag: 'properties',
    summary: 'Properties similar to one',
    description:
      `Same transaction type and property type; in the same commune or within ${SIMILARITY.radiusKm} km; price within ` +
      `±${SIMILARITY.priceTolerance * 100} %; surface within ±${SIMILARITY.surfaceTolerance * 100} % and rooms within ` +
      `±${SIMILARITY.roomTolerance} when both are known; never the property itself. Ranked by a score (lower is closer): ` +
      `relative price gap + relative surface gap + ${SIMILARITY.roomWeight} per room of difference + distance as a share of ` +
      `${SIMILARITY.radiusKm} km (half of it when a location is missing); \`order[...]\` given by the client ranks first, the ` +
      'score then breaks ties, then the uuid. `fromDate` keeps properties created since that date, and ' +
      '`advertPriceMin`/`advertPriceMax` those with a live advert priced within them. Hydra collection of ' +
      'PropertyDocument with the exact `hydra:totalItems`.',
    pathParams: { id: PROPERTY_ID },
    parameters: describeParameters('similar'),
    responses: {
      '200': { description: 'Hydra collection of PropertyDocument', schema: collectionOf('PropertyDocument'), ...IGNORED },
      '400': 'Malformed UUID or parameter',
      '404': 'Unknown property',
    },
  },
  {
    method: 'get',
    path: '/indicators/price_per_meter',
    tag: 'indicators',
    summary: 'Price per m² statistics of the properties matching the filters',
    description:
      'The filters of `/documents/properties` with the spec\'s differences (integer bounds; no sites, site categories or ' +
      'expiry dates); `withLocation`, `geoAccuracy` and `geoShapes` are read as the original service now reads them. Over the matching properties that have a price per m²: `average` their mean, ' +
      '`median` their median, `average_min` the mean of `average` and the lowest value, `average_max` the mean of ' +
      '`average` and the highest; `series` maps each month (`YYYY-MM`, or year `YYYY` with `aggregationInterval=year`) ' +
      'of the property\'s creation, Paris time, to that period\'s mean. No match gives one member with nulls and an empty ' +
      'series. Values are rounded to the cent.',
    parameters: describeParameters('price_per_meter'),
    responses: { '200': { description: 'Hydra collection with one price per meter statistic', schema: collectionOf('PricePerMeter'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/documents/properties/:id',
    tag: 'properties',
    summary: 'One property document',
    pathParams: { id: PROPERTY_ID },
    responses: { '200': { description: 'PropertyDocument', schema: ref('PropertyDocument') }, '400': 'Malformed UUID', '404': 'Unknown property' },
  },
  {
    method: 'post',
    path: '/admin/adverts',
    tag: 'ingestion',
    summary: `Ingest a batch of advert snapshots (1 to ${MAX_INGEST_BATCH}); admin key only`,
    description:
      'A snapshot is what a crawler saw of one advert at one time. Identity: `site` + `reference` (or `url`). ' +
      'The service appends only what changed (publication, price, surface, pictures, other fields, expiry, recrawl) and ' +
      'answers one result per item: accepted (with the advert and property ids and the events appended) or rejected ' +
      '(with violations naming each bad field); rejected items change nothing. The same body may be sent as ' +
      '`{"snapshots": [...]}`. Crawlers inside the cluster can send `{"snapshots": [...]}` to the NATS subject ' +
      '`listings.cmd.ingest-adverts.v1` instead.',
    ...ADMIN,
    body: {
      description: 'Advert snapshots: an array, or `{"snapshots": [...]}`. Each item is validated on its own.',
      schema: {
        oneOf: [
          { type: 'array', minItems: 1, maxItems: MAX_INGEST_BATCH, items: ref('AdvertSnapshot') },
          { type: 'object', required: ['snapshots'], additionalProperties: false, properties: { snapshots: { type: 'array', minItems: 1, maxItems: MAX_INGEST_BATCH, items: ref('AdvertSnapshot') } } },
        ],
      },
      example: snapshotExample(),
    },
    responses: { '200': { description: 'One result per snapshot', schema: ref('IngestResult') }, '400': `Not an array of 1 to ${MAX_INGEST_BATCH} items` },
  },
  {
    method: 'post',
    path: '/admin/read-models/properties/rebuild',
    tag: 'ingestion',
    summary: 'Drop the property read models and replay the advert event log into them; admin key only',
    ...ADMIN,
    responses: { '202': { description: 'Rebuild started', schema: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } } } },
  },
  {
    method: 'get',
    path: '/admin/read-models/properties/status',
    tag: 'ingestion',
    summary: 'Projection checkpoint, outbox backlog, read-model sizes and the answering process; admin key only',
    ...ADMIN,
    responses: { '200': { description: 'Status', schema: ref('ProjectionStatus') } },
  },
  {
    method: 'post',
    path: '/searches',
    tag: 'searches',
    summary: 'Create a saved search for the calling account',
    headers: {
      ...PLATFORM_ORIGIN,
      'Idempotency-Key': {
        description:
          'Makes a retry safe: the same key from the same account within 24 hours answers the search the first request created (201, same id) instead of creating another; the same key with another body answers 409. 1 to 255 visible ASCII characters (a UUID, say)',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
      },
    },
    body: { description: 'A Search', schema: ref('SearchInput'), example: SEARCH_EXAMPLE },
    responses: {
      '201': { description: 'The stored Search', schema: ref('Search') },
      '409': 'The account holds the most searches it may, or the Idempotency-Key was sent within 24 hours with another request',
      '413': 'Body over 64 KiB',
    },
  },
  {
    method: 'get',
    path: '/searches',
    tag: 'searches',
    summary: "The caller's saved searches, 30 a page, newest first",
    parameters: [
      { name: 'notificationEnabled', description: 'Only searches with notifications on (true) or off (false)', schema: { type: 'boolean' } },
      { name: 'initiatedFromDashboard', description: 'Only searches whose `initiatedFromDashboard` is true, or false (unset counts as false)', schema: { type: 'boolean' } },
      { name: 'title', description: 'Case-insensitive part of the title', schema: { type: 'string' } },
      { name: 'order[title]', description: 'Order by title instead of creation', schema: { type: 'string', enum: ['asc', 'desc'] } },
      PAGE,
    ],
    responses: { '200': { description: 'Hydra collection of Search', schema: collectionOf('Search'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/searches/:id',
    tag: 'searches',
    summary: "One saved search of the calling account (another account's answers 404)",
    pathParams: { id: SEARCH_ID },
    responses: { '200': { description: 'Search', schema: ref('Search') }, '400': 'Malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'post',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Update a saved search: each field sent replaces the stored one, a field left out keeps its value (PUT does the same)',
    description: SEARCH_UPDATE_TEXT,
    pathParams: { id: SEARCH_ID },
    headers: PLATFORM_ORIGIN,
    body: { description: 'Search fields; those left out keep their stored values, `null` resets one', schema: ref('SearchInput'), example: SEARCH_EXAMPLE },
    responses: SEARCH_UPDATE_RESPONSES,
  },
  {
    method: 'put',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Update a saved search: each field sent replaces the stored one, a field left out keeps its value',
    description: SEARCH_UPDATE_TEXT,
    pathParams: { id: SEARCH_ID },
    headers: PLATFORM_ORIGIN,
    body: { description: 'Search fields; those left out keep their stored values, `null` resets one', schema: ref('SearchInput'), example: SEARCH_EXAMPLE },
    responses: SEARCH_UPDATE_RESPONSES,
  },
  {
    method: 'patch',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Update a saved search with a JSON merge patch (RFC 7396)',
    description:
      `${SEARCH_UPDATE_TEXT} As RFC 7396 has it, a field left out keeps its value, \`null\` resets one to its default, an object merges ` +
      'into the stored object and an array replaces the stored one. Sent as `application/merge-patch+json` (or `application/json`).',
    pathParams: { id: SEARCH_ID },
    headers: PLATFORM_ORIGIN,
    body: {
      description: 'A JSON merge patch of the Search',
      schema: ref('SearchPatch'),
      example: { notificationEnabled: false },
      contentTypes: [MERGE_PATCH_CONTENT_TYPE, 'application/json', 'application/ld+json'],
    },
    responses: SEARCH_UPDATE_RESPONSES,
  },
  {
    method: 'delete',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Delete a saved search (its pending deliveries are dropped)',
    pathParams: { id: SEARCH_ID },
    responses: { '204': 'Deleted', '400': 'Malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/properties',
    tag: 'searches',
    summary: 'The properties the saved search selects, exactly as GET /documents/properties answers its criteria',
    description: 'Only paging and order are read from this query; any other parameter is named in `X-Ignored-Parameters`.',
    pathParams: { id: SEARCH_ID },
    parameters: [
      PAGE,
      { name: 'itemsPerPage', description: `Items per page (default ${DEFAULT_ITEMS_PER_PAGE.properties}, at most ${MAX_ITEMS_PER_PAGE}, 0 for the count only)`, schema: { type: 'integer', minimum: 0, maximum: MAX_ITEMS_PER_PAGE } },
      ...PROPERTY_ORDER,
    ],
    responses: { '200': { description: 'Hydra collection of PropertyDocument', schema: collectionOf('PropertyDocument'), ...IGNORED }, '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/matches',
    tag: 'alerts',
    summary: "The search's matches (one per property that newly met its criteria after it was saved), newest first, 30 a page, each with its propertyDocument",
    pathParams: { id: SEARCH_ID },
    parameters: [PAGE],
    responses: { '200': { description: 'Hydra collection of Match', schema: collectionOf('Match'), ...IGNORED }, '400': 'Malformed UUID or page', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/matches',
    tag: 'alerts',
    summary: "The calling account's matches across its searches, newest first unless `order[createdAt]=asc`, 30 a page",
    description:
      'Matches of deleted searches are left out. `search` and `property` take IRIs or bare UUIDs, one or several (`search[]=…&search[]=…`); ' +
      'an unknown one matches nothing. Each match carries its PropertyDocument with `withPropertyDocument=true`.',
    query: matchesQuerySchema,
    queryDescriptions: {
      'search[]': 'Search IRIs (`/searches/<uuid>`) or UUIDs',
      'property[]': 'Property IRIs (`/documents/properties/<uuid>`, `/properties/<uuid>`) or UUIDs',
      'order[createdAt]': 'By creation time, `desc` (default) or `asc`',
      withPropertyDocument: 'Embed each PropertyDocument',
      page: 'Page, from 1',
      itemsPerPage: 'Items per page (default and maximum 30)',
    },
    responses: { '200': { description: 'Hydra collection of Match', schema: collectionOf('Match'), ...IGNORED } },
  },
  {
    method: 'get',
    path: '/matches/:id',
    tag: 'alerts',
    summary: 'One match of the calling account',
    pathParams: { id: { description: 'Match UUID', schema: UUID } },
    query: matchQuerySchema,
    queryDescriptions: { withPropertyDocument: 'Embed the PropertyDocument' },
    responses: { '200': { description: 'Match', schema: ref('Match'), ...IGNORED }, '400': 'Malformed UUID', '404': "Unknown match, or another account's" },
  },
  {
    method: 'get',
    path: '/searches/:id/deliveries',
    tag: 'alerts',
    summary: "The search's webhook deliveries, newest first: kind, endpoint, status (pending, delivered, failed) and every attempt (time, status code, duration, error)",
    pathParams: { id: SEARCH_ID },
    parameters: [PAGE, { name: 'itemsPerPage', description: 'Items per page (default 30, at most 100)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } }],
    responses: { '200': { description: 'Hydra collection of Delivery', schema: collectionOf('Delivery'), ...IGNORED }, '400': 'Malformed UUID or paging', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/deliveries/:deliveryId',
    tag: 'alerts',
    summary: 'One delivery; its id is the `webhook-id` header every attempt sent',
    pathParams: { id: SEARCH_ID, deliveryId: { description: 'Delivery UUID', schema: UUID } },
    responses: { '200': { description: 'Delivery', schema: ref('Delivery') }, '400': 'Malformed UUID', '404': 'Unknown search or delivery' },
  },
  {
    method: 'post',
    path: '/searches/:id/deliveries/:deliveryId/retry',
    tag: 'alerts',
    summary: 'Send a delivery again now, with the same `webhook-id`, whatever its status',
    pathParams: { id: SEARCH_ID, deliveryId: { description: 'Delivery UUID', schema: UUID } },
    responses: { '202': { description: 'The delivery, pending again', schema: ref('Delivery') }, '400': 'Malformed UUID', '404': 'Unknown search or delivery' },
  },
  {
    method: 'get',
    path: '/searches/:id/stream',
    tag: 'alerts',
    summary: "Server-Sent Events: the search's notifications as they happen",
    description:
      'Each event has `id` the delivery id, `event` `match` or the event kind, and `data` the webhook body (the Match or Event ' +
      'payload under Webhooks). `Last-Event-ID` (header, or `lastEventId` in the query) resumes after that notification. A ' +
      'comment line every 15 s keeps idle connections open.',
    ownMediaType: true,
    pathParams: { id: SEARCH_ID },
    headers: { 'Last-Event-ID': { description: 'Resume after this notification (what EventSource sends on reconnecting)', schema: UUID } },
    parameters: [{ name: 'lastEventId', description: 'Resume after this notification id, for clients that cannot set the Last-Event-ID header', schema: UUID }],
    responses: {
      '200': {
        description: 'The event stream (its headers are written directly: `X-Request-Id`, not the RateLimit headers)',
        rateLimitHeaders: false,
        contentType: 'text/event-stream',
        schema: { type: 'string', examples: ['id: 4b1e0c2d-…\nevent: match\ndata: {"@context":"/contexts/Match",…}\n\n'] },
      },
      '400': 'Malformed UUID or Last-Event-ID',
      '404': 'Unknown search',
    },
  },
  {
    method: 'get',
    path: '/searches/:id/email-preview',
    tag: 'alerts',
    summary: 'The alert e-mail the search would get next, as HTML (French): from its 10 newest notifications, or an example from a sample property',
    description:
      'One block per property (title, price and price drop, surface, rooms, city, picture, link to the advert), and the ' +
      "search's unsubscribe link, pointing to this origin. A search without notifications yet gets an e-mail built from a " +
      'sample property, marked `Exemple`. The route takes no query parameter: any one is refused (400).',
    ownMediaType: true,
    pathParams: { id: SEARCH_ID },
    responses: {
      '200': {
        description: 'The HTML part of the e-mail, sent with a Content-Security-Policy that lets no script run and loads nothing but https pictures',
        contentType: 'text/html',
        schema: { type: 'string' },
        headers: { 'Content-Security-Policy': { description: 'The policy', required: true }, 'Cache-Control': { description: '`no-store`', required: true } },
      },
      '400': 'Malformed UUID, or a query parameter (the route takes none)',
      '404': 'Unknown search',
      '414': 'Query string over 64 KiB',
    },
  },
  {
    method: 'get',
    path: '/account/webhook-secret',
    tag: 'alerts',
    summary: 'The secret webhooks of the calling account are signed with (Standard Webhooks, `whsec_...`)',
    description:
      'Every webhook carries `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`); ' +
      'any Standard Webhooks library verifies them.',
    responses: { '200': { description: 'The secret', schema: ref('WebhookSecret') } },
  },
  {
    method: 'post',
    path: '/account/webhook-secret/rotate',
    tag: 'alerts',
    summary: 'Make a new signing secret; for 24 hours webhooks carry signatures by both the new and the previous one',
    responses: { '200': { description: 'The new secret', schema: ref('WebhookSecret') } },
  },
  {
    method: 'get',
    path: '/webhook-tester',
    tag: 'alerts',
    summary: 'Send a sample notification, signed like real ones, to an https endpoint: a Match without eventType, an Event of that kind with it',
    description: 'The sample is built from a real property. Unknown parameters are refused (400), so a misspelt `eventType` never sends a Match by mistake.',
    parameters: [
      { name: 'endpoint', description: 'The https URL to send to (not a private address)', required: true, schema: { type: 'string', format: 'uri' } },
      { name: 'eventType', description: 'One of the six event kinds; absent sends a Match', schema: { type: 'string', enum: [...ADVERT_WEBHOOK_KINDS] } },
      { name: 'dryRun', description: 'true: answer the payload and headers without sending them', schema: { type: 'boolean' } },
    ],
    responses: {
      '200': {
        description: '`{success, code, error, durationMs, webhookId}` (`success` when the receiver said 200), or with dryRun the payload and headers',
        schema: { oneOf: [ref('WebhookTestResult'), ref('WebhookDryRun')] },
      },
      '400': 'Missing or invalid endpoint, unknown eventType or unknown parameter',
    },
  },
  {
    method: 'get',
    path: '/public/search/disable-notifications',
    tag: 'searches',
    summary: "The page an alert e-mail's unsubscribe link opens: it asks to confirm (no API key; a GET never unsubscribes)",
    description: 'Mail scanners and previews open links nobody clicked, so the page holds a button that posts the one-click form below.',
    parameters: [{ name: 'searchToken', description: 'The search token the link carries', required: true, schema: { type: 'string', maxLength: 200 } }],
    responses: {
      '200': { description: 'An HTML page with the confirmation button', contentType: 'text/html', schema: { type: 'string' } },
      '400': 'Missing or empty `searchToken`',
      '429': { description: 'More than 10 requests this minute from this address', sharedHeaders: ['Retry-After'] },
    },
    public: true,
    upstream: false,
    ownMediaType: true,
  },
  {
    method: 'post',
    path: '/public/search/disable-notifications',
    tag: 'searches',
    summary: 'Turn notifications off with the search token of an alert (no API key; 10 requests a minute per address)',
    description:
      'Takes the JSON body below, or the one-click unsubscribe of RFC 8058 that mail clients send from the `List-Unsubscribe` header of an ' +
      'alert e-mail: `application/x-www-form-urlencoded` body `List-Unsubscribe=One-Click`, the token in the `searchToken` query parameter ' +
      '(answered with an HTML page when the client accepts `text/html`).',
    parameters: [{ name: 'searchToken', description: 'The search token, for the one-click form post', schema: { type: 'string', maxLength: 200 } }],
    body: { description: 'The search token, and why', schema: ref('UnsubscribeRequest') },
    responses: {
      '200': { description: 'Notifications are off', schema: ref('UnsubscribeResult') },
      '404': { description: 'Unknown token: `{"success": false}`', schema: ref('UnsubscribeResult'), contentType: 'application/json' },
      '429': { description: 'More than 10 requests this minute from this address', sharedHeaders: ['Retry-After'] },
    },
    public: true,
    ownMediaType: true,
  },
  {
    method: 'post',
    path: '/admin/accounts',
    tag: 'accounts',
    summary: 'Create an account and its first API key, shown once; admin key only',
    ...ADMIN,
    body: { description: 'The account name', schema: ref('CreateAccountRequest') },
    responses: { '201': { description: 'The account and its key', schema: ref('CreatedAccount') } },
  },
  {
    method: 'get',
    path: '/admin/accounts',
    tag: 'accounts',
    summary: 'Accounts, 30 a page, with their keys by id (never the key); admin key only',
    ...ADMIN,
    parameters: [PAGE],
    responses: { '200': { description: 'Hydra collection of accounts', schema: collectionOf('Account') } },
  },
  {
    method: 'post',
    path: '/admin/accounts/:id/keys',
    tag: 'accounts',
    summary: 'Issue another API key (rotation: older keys work until revoked), shown once; admin key only',
    ...ADMIN,
    pathParams: { id: { description: 'Account UUID', schema: UUID } },
    responses: { '201': { description: 'The new key', schema: ref('IssuedKey') }, '400': 'Malformed account id', '404': 'Unknown account' },
  },
  {
    method: 'delete',
    path: '/admin/accounts/:id/keys/:keyId',
    tag: 'accounts',
    summary: 'Revoke an API key: every gateway refuses it within seconds; admin key only',
    ...ADMIN,
    pathParams: { id: { description: 'Account UUID', schema: UUID }, keyId: { description: 'Key id', schema: { type: 'string', pattern: '^[0-9a-f]{12}$' } } },
    responses: { '204': 'Revoked', '400': 'Malformed account or key id', '404': 'Unknown account or key' },
  },
  {
    method: 'get',
    path: DOCS_PATH,
    ...DOCS_ROUTE,
    summary: 'This page: Swagger UI on the OpenAPI document',
    responses: {
      '200': {
        description: 'The page, sent with a Content-Security-Policy (scripts, styles and requests from this origin only)',
        contentType: 'text/html',
        schema: { type: 'string' },
        headers: { 'Content-Security-Policy': { description: 'The policy', required: true }, ETag: { description: 'Content hash', required: true } },
      },
      '304': 'Not modified (`If-None-Match`)',
    },
  },
  {
    method: 'get',
    path: `${DOCS_ASSETS_PATH}/:file`,
    ...DOCS_ROUTE,
    summary: 'A file of the docs page (Swagger UI from the swagger-ui-dist package, and the script that starts it)',
    pathParams: { file: { description: 'File name', schema: { type: 'string', enum: [...DOCS_ASSET_NAMES] } } },
    parameters: [{ name: 'v', description: 'The content hash the page links with: with the current one the file may be cached for a year', schema: { type: 'string' } }],
    responses: {
      '200': {
        description: 'The file (gzip when accepted); `Cache-Control` immutable when `v` is the current hash, revalidated otherwise',
        contentType: ['text/javascript', 'text/css', 'image/png', 'application/json'],
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        headers: { 'Cache-Control': { description: 'Caching policy', required: true }, ETag: { description: 'Content hash', required: true } },
      },
      '304': 'Not modified (`If-None-Match`)',
      '404': 'No such file',
    },
  },
  {
    method: 'get',
    path: OPENAPI_JSON_PATH,
    ...DOCS_ROUTE,
    summary: 'This OpenAPI 3.1 document',
    responses: { '200': { description: 'The document', schema: { type: 'object', description: 'OpenAPI 3.1', additionalProperties: true } }, '304': 'Not modified (`If-None-Match`)' },
  },
  {
    method: 'get',
    path: OPENAPI_JSON_ALIAS,
    ...DOCS_ROUTE,
    summary: `This OpenAPI 3.1 document (its first address; prefer ${OPENAPI_JSON_PATH})`,
    responses: { '200': { description: 'The document', schema: { type: 'object', description: 'OpenAPI 3.1', additionalProperties: true } }, '304': 'Not modified (`If-None-Match`)' },
  },
];

export const API_DESCRIPTION: ApiDescription = { operations: API_OPERATIONS, tags: API_TAGS, version: '1.0.0' };
