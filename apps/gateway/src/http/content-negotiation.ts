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

/** What a JSON-LD answer starts with, as both the default serializer and the page relay write it. */
const JSON_LD_START = '{"@context"';

function isJsonLd(reply: FastifyReply, payload: unknown): payload is string | Buffer {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.startsWith('application/json')) return false;
  if (typeof payload === 'string') return payload.startsWith(JSON_LD_START);
  return Buffer.isBuffer(payload) && payload.toString('latin1', 0, JSON_LD_START.length) === JSON_LD_START;
}

function varyOnAccept(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  void reply.header('vary', current === '' ? 'Accept' : `${current}, Accept`);
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
 * they are. The usual request costs a header comparison and, on the way out, a look at the
 * body's first bytes; only a plain-JSON answer is parsed and written again.
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
    instance.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const format = request.responseFormat;
      if (format === null || !isJsonLd(reply, payload)) return payload;
      varyOnAccept(reply);
      if (format === 'jsonld') {
        void reply.header('content-type', JSON_LD_CONTENT_TYPE);
        return payload;
      }
      void reply.header('content-type', JSON_CONTENT_TYPE);
      return JSON.stringify(toPlainJson(JSON.parse(payload.toString())));
    });
  };
  void fastify.register(Object.assign(plugin, { [Symbol.for('skip-override')]: true }));
}
