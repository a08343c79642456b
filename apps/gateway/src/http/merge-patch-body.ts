import type { FastifyInstance } from 'fastify';

/** RFC 7396's media type: a JSON object whose fields are merged into the resource (`PATCH`). */
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';

/**
 * Reads `application/merge-patch+json` bodies as the JSON they are, with Fastify's own JSON parser
 * (the same prototype-poisoning refusals, the route's body limit, the same 400 for bad JSON).
 */
export function installMergePatchBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(MERGE_PATCH_CONTENT_TYPE, { parseAs: 'string' }, fastify.getDefaultJsonParser('error', 'error'));
}
