import { SetMetadata } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

/**
 * How large a body each route reads, enforced by Fastify while it reads (a `Content-Length` over
 * the limit is refused before any byte is read, a chunked body as soon as it passes it): 413, and
 * the connection is closed rather than read further. The limit is the route's own, not one for
 * the whole server, so a large limit granted to ingestion does not let every route read 5 MiB.
 *
 * - `small` (every route not marked otherwise): the unsubscribe link's body is at most about
 *   2,400 characters (14 KB if every one is sent as a `\uXXXX` escape), an account's name 200;
 *   the other routes take no body at all.
 * - `search`: a search is a few hundred bytes; 64 KiB leaves room for long expression lists.
 * - `ingestion`: a batch of up to 1,000 advert snapshots, `BODY_LIMIT_BYTES` (5 MiB by default),
 *   for the admin key only: the key is checked before the body is read, so no other caller gets
 *   this far.
 */
export type BodyLimitName = 'small' | 'search' | 'ingestion';

export const SMALL_BODY_LIMIT_BYTES = 16 * 1024;
export const SEARCH_BODY_LIMIT_BYTES = 64 * 1024;

export type BodyLimits = Record<BodyLimitName, number>;

export function bodyLimits(ingestionBytes: number): BodyLimits {
  return { small: SMALL_BODY_LIMIT_BYTES, search: SEARCH_BODY_LIMIT_BYTES, ingestion: ingestionBytes };
}

export const BODY_LIMIT = 'bodyLimit';

/** The body limit of a route whose body may be larger than `small`. */
export const BodyLimit = (name: Exclude<BodyLimitName, 'small'>) => SetMetadata(BODY_LIMIT, name);

/**
 * Gives each route its body limit as Fastify registers it. Registered before Nest registers its
 * routes (an `onRoute` hook only sees routes added after it). Routes Nest did not register (the
 * CORS preflight route) and requests no route matched keep the server's limit, which is `small`.
 */
export function installRouteBodyLimits(fastify: FastifyInstance, limits: BodyLimits): void {
  fastify.addHook('onRoute', (route) => {
    // `bodyLimitName` is written from `@BodyLimit` at start (see `stampRoutePolicies`).
    route.bodyLimit = limits[route.config?.bodyLimitName ?? 'small'];
  });
}

/** "64 KiB", "5 MiB", or bytes when not a whole number of either. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
