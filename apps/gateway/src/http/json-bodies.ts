import type { FastifyInstance } from 'fastify';
import { JSON_LD_MEDIA_TYPE } from './response-format';

/** RFC 7396's media type: a JSON object whose fields are merged into the resource (`PATCH`). */
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

/**
 * Bodies sent as `application/ld+json` (what Hydra clients send, and what API Platform reads) or
 * `application/merge-patch+json` (a `PATCH`) are read as the JSON they are, by Fastify's own JSON
 * parser with its defaults (a `__proto__` or `constructor.prototype` key refused): the routes see
 * the same value as from `application/json`, under the same body limits and the same 400 for bad JSON.
 */
export function acceptJsonBodies(fastify: FastifyInstance): void {
  const readAsJson = fastify.getDefaultJsonParser('error', 'error');
  for (const type of [JSON_LD_MEDIA_TYPE, MERGE_PATCH_CONTENT_TYPE]) fastify.addContentTypeParser(type, { parseAs: 'string' }, readAsJson);
}
