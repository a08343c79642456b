/**
 * One call per GET operation of the OpenAPI description, as a client generated from it
 * (openapi-typescript + openapi-fetch) makes it. `generated-client.e2e.spec.ts` fails for an
 * operation of the served document that has no entry here: a new GET route gets its line.
 */

/** What the stack holds for the calls to use, made before they run. */
export interface SeededIds {
  propertyId: string;
  cityId: number;
  searchId: string;
  searchToken: string;
  docsAsset: string;
  /** The seeded flat's match for a search saved before it arrived. */
  matchId: string;
}

/** What openapi-fetch reads an answer as: JSON (the default), text, or a stream left unread. */
export type ParseAs = 'json' | 'text' | 'stream';

export interface GetCall {
  params?: { path?: Record<string, string | number>; query?: Record<string, unknown> };
  /** The key the call is made with: the stack's account key by default. */
  key?: 'admin' | 'none';
  parseAs?: ParseAs;
  status: number;
  /** Beyond the check against the document's schema: that the call did what it says. */
  check?: (body: unknown, response: Response) => void;
}

type Collection = { '@type': string; 'hydra:member': Record<string, unknown>[]; 'hydra:totalItems': number };

const collection = (body: unknown) => body as Collection;

function expectTrue(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected ${what}`);
}

const noIgnoredParameters = (response: Response) => expectTrue(response.headers.get('x-ignored-parameters') === null, `no X-Ignored-Parameters (got ${response.headers.get('x-ignored-parameters')})`);

/** A ring around the centre of Lyon, [lon, lat], closed. */
const LYON_RING = [
  [4.8, 45.72],
  [4.9, 45.72],
  [4.9, 45.8],
  [4.8, 45.8],
  [4.8, 45.72],
];
const LYON_POLYGON = LYON_RING.slice(0, 4).map(([lon, lat]) => ({ lat, lon }));
const EXPRESSIONS = [[{ word: 'traversant' }, { word: 'piscine', options: { includes: false } }]];

export function getCalls(ids: SeededIds): Record<string, GetCall> {
  const search = { path: { id: ids.searchId } };
  return {
    '/health/live': { key: 'none', status: 200 },
    '/health/ready': { key: 'none', status: 200 },
    '/metrics': { key: 'none', parseAs: 'text', status: 200 },
    '/': { status: 200 },
    '/cities': {
      params: { query: { polygon: JSON.stringify(LYON_POLYGON), 'order[name]': 'asc' } },
      status: 200,
      check: (body, response) => {
        noIgnoredParameters(response);
        expectTrue(collection(body)['hydra:member'].some((city) => city['insee'] === '69383'), 'Lyon 3e inside the polygon');
      },
    },
    '/cities/{id}': { params: { path: { id: ids.cityId } }, status: 200 },
    '/departments/{id}': { params: { path: { id: 69 } }, status: 200 },
    '/departments': {
      params: { query: { 'code[]': ['69', '2A'] } },
      status: 200,
      check: (body) => expectTrue(collection(body)['hydra:member'].map((department) => department['departmentCode']).join() === '2A,69', 'the two departments asked for'),
    },
    '/departments/{id}/cities': {
      params: { path: { id: 69 }, query: { page: 2 } },
      status: 200,
      check: (body) => expectTrue(collection(body)['hydra:member'].every((city) => city['department'] === '/departments/69'), "the department's cities"),
    },
    '/site_categories': {
      status: 200,
      check: (body) => expectTrue(collection(body)['hydra:member'].some((category) => category['@id'] === '/site_categories/portal'), "the seeded advert's category"),
    },
    '/site_categories/{id}': { params: { path: { id: 'portal' } }, status: 200 },
    '/matches': {
      params: { query: { property: `/documents/properties/${ids.propertyId}`, 'order[createdAt]': 'asc', withPropertyDocument: 'true' } },
      status: 200,
      check: (body, response) => {
        noIgnoredParameters(response);
        expectTrue(collection(body)['hydra:member'][0]?.['@id'] === `/matches/${ids.matchId}`, 'the seeded match');
      },
    },
    '/matches/{id}': { params: { path: { id: ids.matchId }, query: { withPropertyDocument: 'true' } }, status: 200 },
    '/public/location-autocomplete': { key: 'none', params: { query: { q: 'lyon' } }, status: 200 },
    '/indicators/points_of_interest': { params: { query: { lat: 45.7597, lon: 4.8553, radius: 1, 'facilities[]': ['school'] } }, status: 200 },
    '/documents/properties': {
      params: { query: { geoShapes: JSON.stringify([LYON_RING]), expressions: JSON.stringify(EXPRESSIONS), 'propertyTypes[]': [0], advertPriceMin: 280_000, advertPriceMax: 300_000, itemsPerPage: 5 } },
      status: 200,
      check: (body, response) => {
        noIgnoredParameters(response);
        expectTrue(collection(body)['hydra:member'].some((document) => document['uuid'] === ids.propertyId), 'the seeded flat among the matches');
      },
    },
    '/documents/properties/{id}/similar-properties': { params: { path: { id: ids.propertyId }, query: { itemsPerPage: 5 } }, status: 200 },
    '/indicators/price_per_meter': {
      params: { query: { expressions: JSON.stringify(EXPRESSIONS), 'includedCities[]': ['/cities/69123'] } },
      status: 200,
      check: (body) => expectTrue(collection(body)['hydra:member'][0]?.['average'] !== null, 'a statistic over the seeded flat'),
    },
    '/documents/properties/{id}': { params: { path: { id: ids.propertyId } }, status: 200 },
    '/admin/read-models/properties/status': { key: 'admin', status: 200 },
    '/searches': { params: { query: { page: 1 } }, status: 200 },
    '/searches/{id}': { params: search, status: 200 },
    '/searches/{id}/properties': { params: { ...search, query: { itemsPerPage: 5 } }, status: 200 },
    '/searches/{id}/matches': { params: search, status: 200 },
    '/searches/{id}/deliveries': { params: search, status: 200 },
    // The stack sends no webhook: an unknown delivery answers the 404 problem.
    '/searches/{id}/deliveries/{deliveryId}': { params: { path: { id: ids.searchId, deliveryId: '00000000-0000-4000-8000-000000000000' } }, status: 404 },
    '/searches/{id}/stream': { params: search, parseAs: 'stream', status: 200 },
    '/searches/{id}/email-preview': { params: search, parseAs: 'text', status: 200 },
    '/account/webhook-secret': { status: 200 },
    '/webhook-tester': { params: { query: { endpoint: 'https://alerts.example.com/hook', dryRun: true } }, status: 200 },
    '/public/search/disable-notifications': { key: 'none', params: { query: { searchToken: ids.searchToken } }, parseAs: 'text', status: 200 },
    '/admin/accounts': { key: 'admin', status: 200 },
    '/docs': { key: 'none', parseAs: 'text', status: 200 },
    '/docs/assets/{file}': { key: 'none', params: { path: { file: ids.docsAsset } }, parseAs: 'text', status: 200 },
    '/docs/openapi.json': { key: 'none', status: 200 },
    '/docs.json': { key: 'none', status: 200 },
  };
}
