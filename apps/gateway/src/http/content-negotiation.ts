import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refuse } from '../auth/authenticate-before-body';
import { ProblemException } from './problem';
import { JSON_CONTENT_TYPE, JSON_LD_CONTENT_TYPE, negotiateResponseFormat, toPlainJson, type ResponseFormat } from './response-format';

declare module 'fastify' {
  interface FastifyRequest {
    /** What `Accept` asked of a JSON-LD answer; null on routes that pick their own media type. */
    responseFormat: ResponseFormat | null;
  }
}

/** What a page of documents relayed as bytes starts with (`hydraCollectionBytes`). */
const JSON_LD_START = '{"@context"';

/** JSON (not a problem body, which has its own type) on its way out. */
function isJson(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('application/json');
}

/** A resource as a controller answers it, before serialization. */
const isJsonLdObject = (payload: unknown): payload is object => typeof payload === 'object' && payload !== null && !Buffer.isBuffer(payload) && '@context' in payload;

/** A resource relayed as bytes. */
const isJsonLdBytes = (payload: unknown): payload is Buffer => Buffer.isBuffer(payload) && payload.toString('latin1', 0, JSON_LD_START.length) === JSON_LD_START;

/** Labels a JSON-LD answer with its negotiated type. */
function label(reply: FastifyReply, format: ResponseFormat): void {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  void reply.header('vary', current === '' ? 'Accept' : `${current}, Accept`);
  void reply.header('content-type', format === 'jsonld' ? JSON_LD_CONTENT_TYPE : JSON_CONTENT_TYPE);
}

function notAcceptable(): ProblemException {
  return new ProblemException(
    406,
    'This resource is served as application/ld+json (Hydra JSON-LD) or application/json; the Accept header asks for neither. ' +
      'The API reference is at /docs.',
  );
}

/**
 * Content negotiation as API Platform does it, for every route not marked `@OwnMediaType()`:
 * `application/ld+json` by default (no `Accept`, `*\/*`, `application/*`), plain JSON for
 * `application/json` (see `toPlainJson`), q-values weighed, and 406 before anything is done for an
 * `Accept` that admits neither (`text/html` included). Answers whose body is not JSON-LD (plain
 * JSON of admin and account routes, problem bodies, which stay `application/problem+json`) go as
 * they are. A resource is an answer holding `@context`: seen before serialization (where the
 * plain form is made without parsing anything), or, for a page of documents relayed as bytes,
 * by its first bytes (only that page, asked for as plain JSON, is parsed and written again). The
 * usual request costs a header comparison and a key lookup.
 *
 * Registered after the key check, without encapsulation (as `authenticateBeforeBody`): a request
 * without a key is answered 401 whatever it accepts, and a 406 carries the CORS headers.
 */
export function installContentNegotiation(fastify: FastifyInstance): void {
  fastify.decorateRequest('responseFormat', null);
  const plugin = async (instance: FastifyInstance): Promise<void> => {
    instance.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      // A request no route matched is answered 404 whatever it accepts; preflights are CORS's.
      if (request.routeOptions.config?.ownMediaType === true || request.routeOptions.url === undefined || request.method === 'OPTIONS') return;
      const accept = request.headers.accept;
      const format = negotiateResponseFormat(Array.isArray(accept) ? accept.join(', ') : accept);
      if (format === null) return refuse(request, reply, notAcceptable());
      request.responseFormat = format;
    });
    instance.addHook('preSerialization', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const format = request.responseFormat;
      if (format === null || !isJson(reply) || !isJsonLdObject(payload)) return payload;
      label(reply, format);
      return format === 'jsonld' ? payload : toPlainJson(payload);
    });
    instance.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const format = request.responseFormat;
      if (format === null || !isJson(reply) || !isJsonLdBytes(payload)) return payload;
      label(reply, format);
      return format === 'jsonld' ? payload : JSON.stringify(toPlainJson(JSON.parse(payload.toString())));
    });
  };
  void fastify.register(Object.assign(plugin, { [Symbol.for('skip-override')]: true }));
}
