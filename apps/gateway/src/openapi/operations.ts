import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_INGEST_BATCH, MAX_POI_RADIUS_KM } from '@immo/contracts';
import { DEFAULT_ITEMS_PER_PAGE, DEFAULT_ORDER, MAX_ITEMS_PER_PAGE, SIMILARITY, describeParameters } from '@immo/property-criteria';
import { IGNORED_PARAMETERS_HEADER } from '../listings/property-pages';
import { autocompleteQuerySchema, citiesQuerySchema, pointsOfInterestQuerySchema } from '../geo/geo-query-schemas';
import type { OperationSpec } from './openapi-document';

const problems = { '400': 'Invalid parameters; `violations` names each one' };

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

/** Every HTTP operation the gateway serves, for the OpenAPI document. */
export const API_OPERATIONS: OperationSpec[] = [
  { method: 'get', path: '/health/live', tag: 'health', summary: 'Liveness: the process answers', responses: { '200': 'Alive' }, public: true },
  {
    method: 'get',
    path: '/health/ready',
    tag: 'health',
    summary: 'Readiness: NATS connected and every service answering with its stores ready',
    responses: { '200': 'Ready', '503': 'Not ready; the body names what failed' },
    public: true,
  },
  { method: 'get', path: '/', tag: 'entrypoint', summary: 'Entry point listing the resource collections', responses: { '200': 'Entry point' } },
  {
    method: 'get',
    path: '/cities',
    tag: 'geo',
    summary: 'Cities (communes and the municipal arrondissements of Paris, Lyon and Marseille)',
    description: 'Pages of 30 items, ordered by name. `polygon[<i>][lat]` / `polygon[<i>][lon]` keeps cities whose point lies inside.',
    query: citiesQuerySchema,
    responses: { '200': 'Hydra collection of City list items', ...problems },
  },
  {
    method: 'get',
    path: '/cities/:id',
    tag: 'geo',
    summary: 'One city',
    pathParams: { id: 'integer city id (stable, derived from the INSEE code)' },
    responses: { '200': 'City', '400': 'Malformed id', '404': 'Unknown city' },
  },
  {
    method: 'get',
    path: '/departments/:id',
    tag: 'geo',
    summary: 'One department',
    pathParams: { id: 'integer department id' },
    responses: { '200': 'Department', '400': 'Malformed id', '404': 'Unknown department' },
  },
  {
    method: 'get',
    path: '/public/location-autocomplete',
    tag: 'geo',
    summary: 'Cities and departments matching a term (name or postal code prefix), insensitive to accents, case and punctuation',
    query: autocompleteQuerySchema,
    responses: { '200': 'hydra:member holds Location suggestions', ...problems },
  },
  {
    method: 'get',
    path: '/indicators/points_of_interest',
    tag: 'indicators',
    summary: 'Points of interest around a point (SYNTHETIC data: generated around communes, scaled by population)',
    description: `All parameters are required; radius is in kilometres, at most ${MAX_POI_RADIUS_KM}. No offline source of real points of interest exists, so these are synthetic unless an operator loads a real extract.`,
    query: pointsOfInterestQuerySchema,
    responses: { '200': 'Collection of points of interest', ...problems },
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
    responses: {
      '200': {
        description: 'Hydra collection of PropertyDocument',
        headers: {
          [IGNORED_PARAMETERS_HEADER]: {
            description:
              'Comma-separated names of the query parameters this endpoint does not read (top-level names, and ' +
              '`order[<key>]` for a field it does not sort by); they were ignored. Absent when every parameter was read.',
            schema: { type: 'string', examples: ['colour, order[rooms]'] },
          },
        },
      },
      ...problems,
    },
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
      'score then breaks ties, then the uuid. `fromDate` keeps properties created since that date. Hydra collection of ' +
      'PropertyDocument with the exact `hydra:totalItems`.',
    pathParams: { id: 'property UUID' },
    parameters: describeParameters('similar'),
    responses: { '200': 'Hydra collection of PropertyDocument', '400': 'Malformed UUID or parameter', '404': 'Unknown property' },
  },
  {
    method: 'get',
    path: '/indicators/price_per_meter',
    tag: 'indicators',
    summary: 'Price per m² statistics of the properties matching the filters',
    description:
      'The filters of `/documents/properties` with the spec\'s differences (integer bounds; no sites, location flag, geo ' +
      'accuracy, shapes or expiry dates). Over the matching properties that have a price per m²: `average` their mean, ' +
      '`median` their median, `average_min` the mean of `average` and the lowest value, `average_max` the mean of ' +
      '`average` and the highest; `series` maps each month (`YYYY-MM`, or year `YYYY` with `aggregationInterval=year`) ' +
      'of the property\'s creation, Paris time, to that period\'s mean. No match gives one member with nulls and an empty ' +
      'series. Values are rounded to the cent.',
    parameters: describeParameters('price_per_meter'),
    responses: { '200': 'Hydra collection with one price per meter statistic', ...problems },
  },
  {
    method: 'get',
    path: '/documents/properties/:id',
    tag: 'properties',
    summary: 'One property document',
    pathParams: { id: 'property UUID' },
    responses: { '200': 'PropertyDocument', '400': 'Malformed UUID', '404': 'Unknown property' },
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
    body: { description: 'Array of advert snapshots', example: snapshotExample() },
    responses: { '200': 'One result per snapshot', '400': 'Not an array of 1..1000 items', '403': 'Not the admin key', '413': 'Body too large' },
  },
  {
    method: 'post',
    path: '/admin/read-models/properties/rebuild',
    tag: 'ingestion',
    summary: 'Drop the property read models and replay the advert event log into them; admin key only',
    responses: { '202': 'Rebuild started', '403': 'Not the admin key' },
  },
  {
    method: 'get',
    path: '/admin/read-models/properties/status',
    tag: 'ingestion',
    summary: 'Projection checkpoint and read-model sizes; admin key only',
    responses: { '200': 'Status', '403': 'Not the admin key' },
  },
  {
    method: 'post',
    path: '/searches',
    tag: 'searches',
    summary: 'Create a saved search for the calling account',
    body: { description: 'A Search: `title`, `transactionType`, `propertyTypes` required; any filter of GET /documents/properties (not `page`, `itemsPerPage`, `order`), validated as there; `includedCities`/`excludedCities` as `/cities/<id>`, `includedDepartments` as `/departments/<id>`, `includedSiteCategories`/`excludedSiteCategories`; `expressions` nested or as one query-string text; `notificationEnabled` (default false, needs an endpoint), `endpointRecipient` and `eventEndpoint` (https, not private), `subscribedEvents` (the six event kinds), `notificationRecipient` (e-mail), `hidePropertyContact`. Unknown fields are refused; server-written fields are ignored. At most 64 KiB.' },
    responses: { '201': 'The stored Search', '400': 'Invalid fields; `violations` names each one', '409': 'The account holds the most searches it may', '413': 'Body over 64 KiB' },
  },
  {
    method: 'get',
    path: '/searches',
    tag: 'searches',
    summary: "The caller's saved searches, 30 a page, newest first",
    parameters: [
      { name: 'notificationEnabled', description: 'Only searches with notifications on (true) or off (false)', schema: { type: 'boolean' } },
      { name: 'title', description: 'Case-insensitive part of the title', schema: { type: 'string' } },
      { name: 'order[title]', description: 'Order by title instead of creation', schema: { type: 'string', enum: ['asc', 'desc'] } },
      { name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1 } },
    ],
    responses: { '200': 'Hydra collection of Search' },
  },
  {
    method: 'get',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'One saved search of the calling account (another account\'s answers 404)',
    pathParams: { id: 'search UUID' },
    responses: { '200': 'Search', '400': 'Malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'post',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Replace every body field of a saved search (PUT does the same)',
    pathParams: { id: 'search UUID' },
    body: { description: 'A Search: `title`, `transactionType`, `propertyTypes` required; any filter of GET /documents/properties (not `page`, `itemsPerPage`, `order`), validated as there; `includedCities`/`excludedCities` as `/cities/<id>`, `includedDepartments` as `/departments/<id>`, `includedSiteCategories`/`excludedSiteCategories`; `expressions` nested or as one query-string text; `notificationEnabled` (default false, needs an endpoint), `endpointRecipient` and `eventEndpoint` (https, not private), `subscribedEvents` (the six event kinds), `notificationRecipient` (e-mail), `hidePropertyContact`. Unknown fields are refused; server-written fields are ignored. At most 64 KiB.' },
    responses: { '200': 'The updated Search', '400': 'Invalid fields or malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'put',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Replace every body field of a saved search',
    pathParams: { id: 'search UUID' },
    body: { description: 'As POST /searches/{id}' },
    responses: { '200': 'The updated Search', '400': 'Invalid fields or malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'delete',
    path: '/searches/:id',
    tag: 'searches',
    summary: 'Delete a saved search',
    pathParams: { id: 'search UUID' },
    responses: { '204': 'Deleted', '400': 'Malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/properties',
    tag: 'searches',
    summary: 'The properties the saved search selects, exactly as GET /documents/properties answers its criteria',
    pathParams: { id: 'search UUID' },
    parameters: [
      { name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1 } },
      { name: 'itemsPerPage', description: `Items per page (default ${DEFAULT_ITEMS_PER_PAGE.properties}, at most ${MAX_ITEMS_PER_PAGE})`, schema: { type: 'integer', minimum: 0 } },
    ],
    responses: { '200': 'Hydra collection of PropertyDocument', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/matches',
    tag: 'alerts',
    summary: "The search's matches (one per property that newly met its criteria after it was saved), newest first, 30 a page, each with its propertyDocument",
    pathParams: { id: 'search UUID' },
    parameters: [{ name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1 } }],
    responses: { '200': 'Hydra collection of Match', '400': 'Malformed UUID or page', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/deliveries',
    tag: 'alerts',
    summary: "The search's webhook deliveries, newest first: kind, endpoint, status (pending, delivered, failed) and every attempt (time, status code, duration, error)",
    pathParams: { id: 'search UUID' },
    parameters: [
      { name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1 } },
      { name: 'itemsPerPage', description: 'Items per page (default 30, at most 100)', schema: { type: 'integer', minimum: 1, maximum: 100 } },
    ],
    responses: { '200': 'Hydra collection of Delivery', '400': 'Malformed UUID or paging', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/searches/:id/deliveries/:deliveryId',
    tag: 'alerts',
    summary: 'One delivery; its id is the `webhook-id` header every attempt sent',
    pathParams: { id: 'search UUID', deliveryId: 'delivery UUID' },
    responses: { '200': 'Delivery', '400': 'Malformed UUID', '404': 'Unknown search or delivery' },
  },
  {
    method: 'post',
    path: '/searches/:id/deliveries/:deliveryId/retry',
    tag: 'alerts',
    summary: 'Send a delivery again now, with the same `webhook-id`, whatever its status',
    pathParams: { id: 'search UUID', deliveryId: 'delivery UUID' },
    responses: { '202': 'The delivery, pending again', '400': 'Malformed UUID', '404': 'Unknown search or delivery' },
  },
  {
    method: 'get',
    path: '/searches/:id/stream',
    tag: 'alerts',
    summary: "Server-Sent Events: the search's notifications as they happen (`id` the delivery id, `event` match or the event kind, `data` the webhook body)",
    description: '`Last-Event-ID` (header, or `lastEventId` in the query) resumes after that notification. A comment line every 15 s keeps idle connections open.',
    pathParams: { id: 'search UUID' },
    parameters: [{ name: 'lastEventId', description: 'Resume after this notification id (as the Last-Event-ID header)', schema: { type: 'string', format: 'uuid' } }],
    responses: { '200': '`text/event-stream`', '400': 'Malformed UUID', '404': 'Unknown search' },
  },
  {
    method: 'get',
    path: '/account/webhook-secret',
    tag: 'alerts',
    summary: 'The secret webhooks of the calling account are signed with (Standard Webhooks, `whsec_...`)',
    description: 'Every webhook carries `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`); any Standard Webhooks library verifies them.',
    responses: { '200': '`{"secret": "whsec_..."}`' },
  },
  {
    method: 'post',
    path: '/account/webhook-secret/rotate',
    tag: 'alerts',
    summary: 'Make a new signing secret; for 24 hours webhooks carry signatures by both the new and the previous one',
    responses: { '200': '`{"secret": "whsec_..."}`, the new one' },
  },
  {
    method: 'get',
    path: '/webhook-tester',
    tag: 'alerts',
    summary: 'Send a sample notification, signed like real ones, to an https endpoint: a Match without eventType, an Event of that kind with it',
    parameters: [
      { name: 'endpoint', description: 'The https URL to send to (not a private address)', required: true, schema: { type: 'string', format: 'uri' } },
      { name: 'eventType', description: 'One of the six event kinds; absent sends a Match', schema: { type: 'string', enum: ['property.ad.create', 'property.ad.update', 'ad.update.price', 'ad.update.surface', 'ad.update.pictures', 'ad.update.expired'] } },
      { name: 'dryRun', description: 'true: answer the payload and headers without sending them', schema: { type: 'boolean' } },
    ],
    responses: { '200': '`{success, code, error, durationMs, webhookId}` (`success` when the receiver said 200), or with dryRun `{dryRun, endpoint, headers, payload}`', '400': 'Missing or invalid endpoint, unknown eventType or unknown parameter' },
  },
  {
    method: 'post',
    path: '/public/search/disable-notifications',
    tag: 'searches',
    summary: 'Turn notifications off with the search token of an alert (no API key; 10 requests a minute per address)',
    body: { description: '`{"searchToken": "...", "reason"?: "...", "comment"?: "..."}`' },
    responses: { '200': '`{"success": true}`', '400': 'Invalid body', '404': '`{"success": false}`: unknown token', '429': 'Too many requests' },
    public: true,
  },
  {
    method: 'post',
    path: '/admin/accounts',
    tag: 'accounts',
    summary: 'Create an account and its first API key, shown once; admin key only',
    body: { description: '`{"name": "..."}`' },
    responses: { '201': '`{id, name, createdAt, keyId, apiKey}`', '400': 'Invalid name', '403': 'Not the admin key' },
  },
  {
    method: 'get',
    path: '/admin/accounts',
    tag: 'accounts',
    summary: 'Accounts, 30 a page, with their keys by id (never the key); admin key only',
    parameters: [{ name: 'page', description: 'Page, from 1', schema: { type: 'integer', minimum: 1 } }],
    responses: { '200': 'Hydra collection of accounts', '403': 'Not the admin key' },
  },
  {
    method: 'post',
    path: '/admin/accounts/:id/keys',
    tag: 'accounts',
    summary: 'Issue another API key (rotation: older keys work until revoked), shown once; admin key only',
    pathParams: { id: 'account UUID' },
    responses: { '201': '`{keyId, apiKey}`', '404': 'Unknown account', '403': 'Not the admin key' },
  },
  {
    method: 'delete',
    path: '/admin/accounts/:id/keys/:keyId',
    tag: 'accounts',
    summary: 'Revoke an API key: every gateway refuses it within seconds; admin key only',
    pathParams: { id: 'account UUID', keyId: 'key id' },
    responses: { '204': 'Revoked', '404': 'Unknown account or key', '403': 'Not the admin key' },
  },
];
