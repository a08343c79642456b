import type { FastifyInstance } from 'fastify';
import { JSON_LD_MEDIA_TYPE } from './response-format';

/**
 * Request bodies sent as `application/ld+json` (what Hydra clients send, and what API Platform
 * reads) are read as the JSON they are, by Fastify's own JSON parser with its defaults (a
 * `__proto__` or `constructor.prototype` key refused): the routes see the same value as from
 * `application/json`, under the same body limits.
 */
export function acceptJsonLdBodies(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(JSON_LD_MEDIA_TYPE, { parseAs: 'string' }, fastify.getDefaultJsonParser('error', 'error'));
}
