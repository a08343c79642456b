import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  IDEMPOTENCY_KEY_PATTERN,
  LISTINGS_SUBJECTS,
  SEARCHES_SUBJECTS,
  type SearchesPage,
  type SearchRecord,
  type SearchUpdateMerge,
} from '@immo/contracts';
import { searchVariables } from '@immo/property-criteria';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { BodyLimit } from '../http/body-limits';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { nameIgnoredParameters } from '../http/ignored-parameters';
import { parsedCriteria, relayPropertyPage } from '../listings/property-pages';
import { callerOf, uuidParameter } from './search-route-params';

const SEARCH_MAPPINGS = ['notificationEnabled', 'initiatedFromDashboard', 'title', 'order[title]', 'page'].map((variable) => ({ variable, property: null, required: false }));
const PROPERTY_MAPPINGS = searchVariables('properties').map((variable) => ({ variable, property: null, required: false }));
/** What `GET /searches/{id}/properties` takes from its own query: the search gives the rest. */
const PAGING_PARAMETERS = new Set(['page', 'itemsPerPage', 'order']);

const searchId = (id: string) => uuidParameter(id);

const origin = (header: string | string[] | undefined): string | undefined => {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined || value === '' ? undefined : value.slice(0, 200);
};

/** Saved searches (spec: GET/POST /searches, GET/POST /searches/{id}; PUT and PATCH beside), scoped to the caller's account. */
@Controller('searches')
export class SearchesController {
  constructor(private readonly services: ServiceClient) {}

  @Post()
  @HttpCode(201)
  @BodyLimit('search')
  create(
    @Req() request: AuthenticatedRequest,
    @Body() body: unknown,
    @Headers('platformorigin') platformOrigin?: string,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<SearchRecord> {
    const platform = origin(platformOrigin);
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw ProblemException.invalidParameter('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
    }
    return this.services.request<SearchRecord>(SEARCHES_SUBJECTS.createSearch, {
      caller: callerOf(request),
      body,
      ...(platform ? { platformOrigin: platform } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    });
  }

  @Get()
  async list(@Req() request: AuthenticatedRequest, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const page = await this.services.request<SearchesPage<SearchRecord>>(SEARCHES_SUBJECTS.listSearches, { caller: callerOf(request), query });
    nameIgnoredParameters(reply, page.ignoredParameters);
    return hydraCollection({
      context: '/contexts/Search',
      path: '/searches',
      query,
      members: page.items,
      totalItems: page.totalItems,
      page: page.page,
      itemsPerPage: page.itemsPerPage,
      mappings: SEARCH_MAPPINGS,
    });
  }

  @Get(':id')
  get(@Req() request: AuthenticatedRequest, @Param('id') id: string): Promise<SearchRecord> {
    return this.services.request<SearchRecord>(SEARCHES_SUBJECTS.getSearch, { caller: callerOf(request), id: searchId(id) });
  }

  /**
   * The spec updates with POST; PUT does the same. As in the original service, each field sent
   * replaces the stored one and a field left out keeps its stored value.
   */
  @Post(':id')
  @HttpCode(200)
  @BodyLimit('search')
  update(@Req() request: AuthenticatedRequest, @Param('id') id: string, @Body() body: unknown, @Headers('platformorigin') platformOrigin?: string) {
    return this.updated(request, id, body, platformOrigin, 'fields');
  }

  @Put(':id')
  @BodyLimit('search')
  put(@Req() request: AuthenticatedRequest, @Param('id') id: string, @Body() body: unknown, @Headers('platformorigin') platformOrigin?: string) {
    return this.updated(request, id, body, platformOrigin, 'fields');
  }

  /** A JSON merge patch (RFC 7396), sent as `application/merge-patch+json` or `application/json`. */
  @Patch(':id')
  @BodyLimit('search')
  patch(@Req() request: AuthenticatedRequest, @Param('id') id: string, @Body() body: unknown, @Headers('platformorigin') platformOrigin?: string) {
    return this.updated(request, id, body, platformOrigin, 'json-merge-patch');
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Req() request: AuthenticatedRequest, @Param('id') id: string): Promise<void> {
    await this.services.request(SEARCHES_SUBJECTS.deleteSearch, { caller: callerOf(request), id: searchId(id) });
  }

  /**
   * The search run as `GET /documents/properties` with its criteria: same code, paging and
   * envelope. Only `page`, `itemsPerPage` and `order[...]` are read from this query.
   */
  @Get(':id/properties')
  async properties(
    @Req() request: AuthenticatedRequest,
    @Param('id') id: string,
    @BracketQuery() query: ParsedQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const { query: criteriaQuery } = await this.services.request<{ query: Record<string, unknown> }>(SEARCHES_SUBJECTS.searchCriteria, {
      caller: callerOf(request),
      id: searchId(id),
    });
    const paging = Object.fromEntries(Object.entries(query).filter(([name]) => PAGING_PARAMETERS.has(name))) as ParsedQuery;
    const ignored = Object.keys(query).filter((name) => !PAGING_PARAMETERS.has(name));
    const combined = { ...criteriaQuery, ...paging };
    return relayPropertyPage(this.services, reply, {
      subject: LISTINGS_SUBJECTS.listProperties,
      payload: { query: combined },
      path: `/searches/${searchId(id)}/properties`,
      query: paging,
      criteria: parsedCriteria(combined, 'properties', reply, ignored),
      mappings: PROPERTY_MAPPINGS,
    });
  }

  private updated(request: AuthenticatedRequest, id: string, body: unknown, platformOrigin: string | undefined, merge: SearchUpdateMerge): Promise<SearchRecord> {
    const platform = origin(platformOrigin);
    return this.services.request<SearchRecord>(SEARCHES_SUBJECTS.updateSearch, {
      caller: callerOf(request),
      id: searchId(id),
      body,
      ...(platform ? { platformOrigin: platform } : {}),
      // Left out for PUT and POST, so that a searches service older than PATCH still answers them.
      ...(merge === 'fields' ? {} : { merge }),
    });
  }
}
