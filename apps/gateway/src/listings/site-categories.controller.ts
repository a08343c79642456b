import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { LISTINGS_SUBJECTS, siteCategoryRelation } from '@immo/contracts';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import { queryParam, validateKnownQuery } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';

/** Page size of `/site_categories` (a handful exist). */
export const SITE_CATEGORIES_PAGE_SIZE = 30;

export const siteCategoriesQuerySchema = z.object({ page: queryParam.int({ min: 1, max: 100000 }).default(1) });

const SITE_CATEGORY_MAPPINGS = [{ variable: 'page', property: null, required: false }];

/**
 * The categories of the sites adverts come from (`portal`, `agency-network`…), as searches name
 * them in `includedSiteCategories`: a category is known by its name, and exists while some stored
 * advert comes from a site of it.
 */
@Controller('site_categories')
export class SiteCategoriesController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  async list(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const params = validateKnownQuery(siteCategoriesQuerySchema, query, reply);
    const names = await this.services.request<string[]>(LISTINGS_SUBJECTS.siteCategories, {});
    const start = (params.page - 1) * SITE_CATEGORIES_PAGE_SIZE;
    return hydraCollection({
      context: '/contexts/SiteCategory',
      path: '/site_categories',
      query,
      members: names.slice(start, start + SITE_CATEGORIES_PAGE_SIZE).map(siteCategoryMember),
      totalItems: names.length,
      page: params.page,
      itemsPerPage: SITE_CATEGORIES_PAGE_SIZE,
      mappings: SITE_CATEGORY_MAPPINGS,
    });
  }

  /** `id` is the name (the router has decoded it). */
  @Get(':id')
  async one(@Param('id') id: string) {
    const names = await this.services.request<string[]>(LISTINGS_SUBJECTS.siteCategories, {});
    if (!names.includes(id)) throw ProblemException.notFound(`Site category ${id} was not found.`);
    return siteCategoryRelation(id);
  }
}

/** A collection member: the item without its own `@context` (the collection's applies). */
function siteCategoryMember(name: string) {
  const { '@context': _context, ...member } = siteCategoryRelation(name);
  return member;
}
