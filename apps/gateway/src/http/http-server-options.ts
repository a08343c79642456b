import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { GatewayConfig } from '@immo/service-kit';
import { QUERY_LIMITS } from './query-string';

/** What Node allows for the request line and headers by default, kept for everything but the query. */
export const HEADER_HEADROOM_BYTES = 16 * 1024;

/**
 * Options of the gateway's Fastify server. Node counts the request line, query string included,
 * against its header limit (16 KiB by default) and answers a bare 431 beyond it, so a query
 * between 16 and 64 KiB would never reach QUERY_LIMITS (whose 414 carries a problem body). The
 * limit is raised to the longest query we accept plus the default room for the rest.
 */
export function gatewayFastifyOptions(config: Pick<GatewayConfig, 'BODY_LIMIT_BYTES'>): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Bracket query strings are parsed per route with bounds (BracketQuery); skip Fastify's parser.
    routerOptions: { querystringParser: () => ({}) },
    http: { maxHeaderSize: QUERY_LIMITS.maxLength + HEADER_HEADROOM_BYTES },
  };
}
