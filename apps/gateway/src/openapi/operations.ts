import { MAX_POI_RADIUS_KM } from '@immo/contracts';
import { autocompleteQuerySchema, citiesQuerySchema, pointsOfInterestQuerySchema } from '../geo/geo-query-schemas';
import type { OperationSpec } from './openapi-document';

const problems = { '400': 'Invalid parameters; `violations` names each one' };

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
];
