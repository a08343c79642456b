import type { Server } from 'node:http';
import type { FastifyError, FastifyHttpOptions, FastifyReply } from 'fastify';
import type { GatewayConfig } from '@immo/service-kit';
import { SMALL_BODY_LIMIT_BYTES } from './body-limits';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem';
import { QUERY_LIMITS } from './query-string';

/** How a violation names the request's path when it cannot be decoded. */
export const URL_PATH = '(url)';

/**
 * Errors Fastify meets before any route (a path it cannot decode, `/cities/%`): in the problem
 * shape like every other answer, instead of Fastify's own `{"error", "code"}` body.
 */
function answerFrameworkError(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  const badUrl = error.code === 'FST_ERR_BAD_URL';
  const body = badUrl
    ? problemBody(400, 'The request path is not a valid URL (a % not followed by two hex digits?).', [{ propertyPath: URL_PATH, message: error.message }])
    : problemBody(status, status >= 500 ? 'An unexpected error occurred.' : error.message);
  void reply.status(body.status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
}

/** What Node allows for the request line and headers by default, kept for everything but the query. */
export const HEADER_HEADROOM_BYTES = 16 * 1024;

/**
 * Options of the gateway's Fastify server. Node counts the request line, query string included,
 * against its header limit (16 KiB by default) and answers a bare 431 beyond it, so a query
 * between 16 and 64 KiB would never reach QUERY_LIMITS (whose 414 carries a problem body). The
 * limit is raised to the longest query we accept plus the default room for the rest.
 *
 * The server's body limit is the small one: routes that take larger bodies get theirs as they are
 * registered (`installRouteBodyLimits`), so a request matching no route reads no more than that.
 */
export function gatewayFastifyOptions(config: Partial<Pick<GatewayConfig, 'TRUST_PROXY'>>): FastifyHttpOptions<Server> {
  const proxies = (config.TRUST_PROXY ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  return {
    bodyLimit: SMALL_BODY_LIMIT_BYTES,
    // `request.ip` is the socket's address, or X-Forwarded-For's client when the socket is a trusted proxy.
    trustProxy: proxies.length > 0 ? proxies : false,
    // Bracket query strings are parsed per route with bounds (BracketQuery); skip Fastify's parser.
    routerOptions: { querystringParser: () => ({}) },
    http: { maxHeaderSize: QUERY_LIMITS.maxLength + HEADER_HEADROOM_BYTES },
    frameworkErrors: answerFrameworkError,
  };
}
