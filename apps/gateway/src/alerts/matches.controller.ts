import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SEARCHES_SUBJECTS, type MatchesPage, type MatchListItem } from '@immo/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { validateKnownQuery } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { callerOf, uuidParameter } from '../searches/search-route-params';
import { matchQuerySchema, matchesQuerySchema } from './matches-query-schema';
import { matchResources } from './match-resources';

const MATCH_MAPPINGS = [
  { variable: 'search', property: 'search', required: false },
  { variable: 'search[]', property: 'search', required: false },
  { variable: 'property', property: 'property', required: false },
  { variable: 'property[]', property: 'property', required: false },
  { variable: 'order[createdAt]', property: 'createdAt', required: false },
  { variable: 'withPropertyDocument', property: null, required: false },
  { variable: 'page', property: null, required: false },
  { variable: 'itemsPerPage', property: null, required: false },
];

/**
 * The caller's matches across all its searches (the original service's `/matches`). The searches
 * service answers only the caller's own: another account's match is a 404 here as everywhere.
 */
@Controller('matches')
export class MatchesController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  async list(@Req() request: AuthenticatedRequest, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const params = validateKnownQuery(matchesQuerySchema, query, reply);
    const found = await this.services.request<MatchesPage>(SEARCHES_SUBJECTS.accountMatches, {
      caller: callerOf(request),
      ...(params.search ? { searchIds: params.search } : {}),
      ...(params.property ? { propertyIds: params.property } : {}),
      order: params.order?.createdAt ?? 'desc',
      page: params.page,
      itemsPerPage: params.itemsPerPage,
    });
    return hydraCollection({
      context: '/contexts/Match',
      path: '/matches',
      query,
      members: await matchResources(this.services, found.items, params.withPropertyDocument),
      totalItems: found.totalItems,
      page: found.page,
      itemsPerPage: found.itemsPerPage,
      mappings: MATCH_MAPPINGS,
    });
  }

  @Get(':id')
  async one(@Req() request: AuthenticatedRequest, @Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const matchId = uuidParameter(id);
    const params = validateKnownQuery(matchQuerySchema, query, reply);
    const match = await this.services.request<MatchListItem>(SEARCHES_SUBJECTS.match, { caller: callerOf(request), id: matchId });
    const [resource] = await matchResources(this.services, [match], params.withPropertyDocument);
    return resource;
  }
}
