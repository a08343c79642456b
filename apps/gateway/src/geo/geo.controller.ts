import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GEO_SUBJECTS } from '@immo/contracts';
import { Public } from '../auth/public.decorator';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import { validateKnownQuery, validateQuery } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { PublicRouteLimiter } from '../http/rate-limit/public-route-limiter';
import { ServiceClient } from '../rpc/service-client';
import { autocompleteQuerySchema, citiesQuerySchema, departmentCitiesQuerySchema, departmentsQuerySchema, pointsOfInterestQuerySchema } from './geo-query-schemas';

/** Page size of `/cities` (the spec gives `page` but no `itemsPerPage`). */
export const CITIES_PAGE_SIZE = 30;

const CITY_MAPPINGS = [
  ['excludeGroupedCities', 'excludeGroupedCities'],
  ['insee', 'insee'],
  ['insee[]', 'insee'],
  ['zipcode', 'zipcode'],
  ['zipcode[]', 'zipcode'],
  ['polygon', 'location'],
  ['libelle', 'libelle'],
  ['name', 'name'],
  ['slug', 'slug'],
  ['order[name]', 'name'],
  ['page', null],
] as const;

const DEPARTMENT_MAPPINGS = [
  { variable: 'code', property: 'departmentCode', required: false },
  { variable: 'code[]', property: 'departmentCode', required: false },
  { variable: 'name', property: 'name', required: false },
  { variable: 'page', property: null, required: false },
  { variable: 'itemsPerPage', property: null, required: false },
];
const DEPARTMENT_CITY_MAPPINGS = [{ variable: 'page', property: null, required: false }];

interface Page {
  items: unknown[];
  totalItems: number;
}

function positiveId(raw: string, what: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw ProblemException.invalidParameter('id', `must be a positive integer ${what} id`);
  return Number(raw);
}

@Controller()
export class GeoController {
  constructor(
    private readonly services: ServiceClient,
    private readonly publicRoutes: PublicRouteLimiter,
  ) {}

  @Get('cities')
  async cities(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    // Unknown parameters are ignored and named, as on every collection, so a client of the
    // original service sending one of its own is answered rather than refused.
    const params = validateKnownQuery(citiesQuerySchema, query, reply);
    const result = await this.services.request<Page>(GEO_SUBJECTS.listCities, params);
    return hydraCollection({
      context: '/contexts/City',
      path: '/cities',
      query,
      members: result.items,
      totalItems: result.totalItems,
      page: params.page,
      itemsPerPage: CITIES_PAGE_SIZE,
      mappings: CITY_MAPPINGS.map(([variable, property]) => ({ variable, property, required: false })),
    });
  }

  /** The shape of a `/cities` item (department as an IRI), with the City's other fields. */
  @Get('cities/:id')
  async city(@Param('id') id: string) {
    const city = await this.services.request<Record<string, unknown>>(GEO_SUBJECTS.cityResource, { id: positiveId(id, 'city') });
    return { '@context': '/contexts/City', ...city };
  }

  @Get('departments')
  async departments(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const params = validateKnownQuery(departmentsQuerySchema, query, reply);
    const result = await this.services.request<Page>(GEO_SUBJECTS.listDepartments, params);
    return hydraCollection({
      context: '/contexts/Department',
      path: '/departments',
      query,
      members: result.items,
      totalItems: result.totalItems,
      page: params.page,
      itemsPerPage: params.itemsPerPage,
      mappings: DEPARTMENT_MAPPINGS,
    });
  }

  @Get('departments/:id')
  async department(@Param('id') id: string) {
    const department = await this.services.request<{ id: number }>(GEO_SUBJECTS.department, { id: positiveId(id, 'department') });
    return { '@context': '/contexts/Department', '@id': `/departments/${department.id}`, '@type': 'Department', ...department };
  }

  @Get('departments/:id/cities')
  async departmentCities(@Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const department = positiveId(id, 'department');
    const params = validateKnownQuery(departmentCitiesQuerySchema, query, reply);
    // Asked together with the cities: an unknown department is a 404, not an empty page.
    const [, result] = await Promise.all([
      this.services.request(GEO_SUBJECTS.department, { id: department }),
      this.services.request<Page>(GEO_SUBJECTS.listCities, { department, page: params.page }),
    ]);
    return hydraCollection({
      context: '/contexts/City',
      path: `/departments/${department}/cities`,
      query,
      members: result.items,
      totalItems: result.totalItems,
      page: params.page,
      itemsPerPage: CITIES_PAGE_SIZE,
      mappings: DEPARTMENT_CITY_MAPPINGS,
    });
  }

  /** Public, as in the original service (a search box before any sign-in), limited per client address. */
  @Get('public/location-autocomplete')
  @Public()
  async autocomplete(@BracketQuery() query: ParsedQuery, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.publicRoutes.take(request, reply);
    const params = validateQuery(autocompleteQuerySchema, query);
    const members = await this.services.request<unknown[]>(GEO_SUBJECTS.locationAutocomplete, {
      query: params.q ?? params.query ?? '',
      excludedCitiesIds: params.excludedCitiesIds ?? [],
      excludedDepartmentsIds: params.excludedDepartmentsIds ?? [],
    });
    return {
      '@context': '/contexts/LocationSuggestion',
      '@id': '/public/location-autocomplete',
      '@type': 'hydra:Collection',
      'hydra:member': members,
      'hydra:totalItems': members.length,
    };
  }

  @Get('indicators/points_of_interest')
  async pointsOfInterest(@BracketQuery() query: ParsedQuery, @Req() request: FastifyRequest) {
    const params = validateQuery(pointsOfInterestQuerySchema, query);
    const members = await this.services.request<unknown[]>(GEO_SUBJECTS.pointsOfInterest, params);
    return {
      '@context': '/contexts/PointOfInterest',
      '@id': '/indicators/points_of_interest',
      '@type': 'hydra:Collection',
      'hydra:member': members,
      'hydra:totalItems': members.length,
      'hydra:view': { '@id': request.url, '@type': 'hydra:PartialCollectionView' },
    };
  }
}
