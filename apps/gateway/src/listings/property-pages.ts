import type { FastifyReply } from 'fastify';
import { PROPERTY_DOCUMENT_CONTEXT, readPropertyPage } from '@immo/contracts';
import { parsePropertyCriteria, type CriteriaEndpoint, type PropertyCriteria } from '@immo/property-criteria';
import { hydraCollectionBytes, type HydraMapping } from '../http/hydra-collection';
import { nameIgnoredParameters } from '../http/ignored-parameters';
import { ProblemException } from '../http/problem';
import type { ParsedQuery } from '../http/query-string';
import type { ServiceClient } from '../rpc/service-client';

export { IGNORED_PARAMETERS_HEADER } from '../http/ignored-parameters';

/**
 * The criteria of a search query, or a 400 naming each bad parameter. Unknown parameters are
 * ignored (as API Platform does) but named in a header, with `alsoIgnored` (parameters the route
 * itself leaves out): a misspelt filter that silently widens a search is what clients of the
 * original service complain about.
 */
export function parsedCriteria(query: Record<string, unknown>, endpoint: CriteriaEndpoint, reply: FastifyReply, alsoIgnored: string[] = []): PropertyCriteria {
  const parsed = parsePropertyCriteria(query, { endpoint });
  if (!parsed.ok) {
    throw ProblemException.badRequest(`Invalid query parameters: ${parsed.violations.map((v) => v.propertyPath).join(', ')}`, parsed.violations);
  }
  const ignored = [...alsoIgnored, ...parsed.ignored];
  nameIgnoredParameters(reply, ignored);
  return parsed.criteria;
}

export interface PropertyPageRequest {
  /** The listings subject answering a `ListPropertiesReply` as JSON text, and its payload. */
  subject: string;
  payload: unknown;
  /** Path and query of the page, for the Hydra view's links. */
  path: string;
  query: ParsedQuery;
  criteria: Pick<PropertyCriteria, 'page' | 'itemsPerPage'>;
  mappings: HydraMapping[];
}

/**
 * A page of property documents from listings, answered in the Hydra envelope. The documents go
 * out as they came, never decoded, parsed and encoded again here.
 */
export async function relayPropertyPage(services: ServiceClient, reply: FastifyReply, request: PropertyPageRequest): Promise<Buffer> {
  const page = readPropertyPage(await services.requestJsonBytes(request.subject, request.payload));
  void reply.type('application/json; charset=utf-8');
  return hydraCollectionBytes({
    context: PROPERTY_DOCUMENT_CONTEXT,
    path: request.path,
    query: request.query,
    membersJson: page.items,
    totalItems: page.totalItems,
    page: request.criteria.page,
    itemsPerPage: request.criteria.itemsPerPage,
    mappings: request.mappings,
  });
}
