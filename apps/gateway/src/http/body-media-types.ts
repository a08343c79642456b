import { SetMetadata } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem';
import { JSON_LD_MEDIA_TYPE, JSON_MEDIA_TYPE } from './response-format';

/** RFC 7396's media type: a JSON object whose fields are merged into the resource (`PATCH`). */
export const MERGE_PATCH_CONTENT_TYPE = 'application/merge-patch+json';
/** What an HTML form posts (the one-click unsubscribe of an alert e-mail). */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** The body media types every route with a body reads, as API Platform does. */
export const DEFAULT_BODY_MEDIA_TYPES: readonly string[] = [JSON_MEDIA_TYPE, JSON_LD_MEDIA_TYPE];

export const BODY_MEDIA_TYPES = 'bodyMediaTypes';

/** A route that reads bodies of these media types too, besides the JSON ones. */
export const BodyMediaTypes = (...extra: string[]) => SetMetadata(BODY_MEDIA_TYPES, [...DEFAULT_BODY_MEDIA_TYPES, ...extra]);

/** `application/JSON; charset=utf-8` → `application/json`. */
function mediaTypeOf(contentType: string): string {
  return (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the JSON media types as the JSON they are, with Fastify's own parser (the same
 * prototype-poisoning refusals, the route's body limit, the same 400 for bad JSON), and refuses
 * with 415, before the body is read, a body of a type the route does not take (`@BodyMediaTypes`,
 * stamped into the route's config). Without the check, Fastify's built-in text and the form
 * parsers would hand a `text/plain` or form body to a JSON route, to be answered 400 as a bad
 * search rather than 415 as a body of the wrong kind. It runs in `preParsing`, after every
 * `onRequest` hook: a request without a valid key is still answered 401 first.
 */
export function installBodyMediaTypes(fastify: FastifyInstance): void {
  const readAsJson = fastify.getDefaultJsonParser('error', 'error');
  for (const type of [JSON_LD_MEDIA_TYPE, MERGE_PATCH_CONTENT_TYPE]) fastify.addContentTypeParser(type, { parseAs: 'string' }, readAsJson);
  fastify.addHook('preParsing', async (request, reply, payload) => {
    const contentType = request.headers['content-type'];
    if (contentType === undefined || !hasBody(request)) return payload;
    const accepted = request.routeOptions.config?.bodyMediaTypes ?? DEFAULT_BODY_MEDIA_TYPES;
    if (accepted.includes(mediaTypeOf(contentType))) return payload;
    const names = accepted.map((type) => `\`${type}\``).join(', ');
    const detail = `A body of type ${mediaTypeOf(contentType) || '(empty)'} is not read here; send ${names}.`;
    return reply.code(415).header('content-type', PROBLEM_CONTENT_TYPE).send(problemBody(415, detail));
  });
}
