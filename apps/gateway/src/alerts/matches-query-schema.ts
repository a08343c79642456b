import { z } from 'zod';
import { MAX_MATCHES_PER_PAGE } from '@immo/contracts';
import { pageParams, queryParam } from '../http/query-params';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** An IRI under one of `prefixes`, or the bare UUID, read as the UUID. */
function iriOrId(prefixes: readonly string[], example: string) {
  const pattern = new RegExp(`^(?:${prefixes.map((prefix) => prefix.replace(/\//g, '\\/')).join('|')})?(${UUID})$`);
  return z
    .string()
    .regex(pattern, `must be an IRI such as ${example} or its UUID`)
    .transform((value) => (pattern.exec(value)?.[1] ?? value).toLowerCase());
}

/** `GET /matches`: the caller's matches, filtered by search and property, by creation time. */
export const matchesQuerySchema = z.object({
  search: queryParam.array(iriOrId(['/searches/'], '/searches/<uuid>'), 200).optional(),
  property: queryParam.array(iriOrId(['/documents/properties/', '/properties/'], '/documents/properties/<uuid>'), 200).optional(),
  order: z.object({ createdAt: queryParam.order().optional() }, { message: 'must be written order[createdAt]=asc|desc' }).strict().optional(),
  withPropertyDocument: queryParam.boolean().default(false),
  ...pageParams({ defaultItemsPerPage: MAX_MATCHES_PER_PAGE, maxItemsPerPage: MAX_MATCHES_PER_PAGE }),
});

export const matchQuerySchema = z.object({ withPropertyDocument: queryParam.boolean().default(false) });
