import type { Type } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyRequest } from 'fastify';
import { ADMIN_ONLY, IS_PUBLIC } from '../auth/public.decorator';
import { BODY_LIMIT, type BodyLimitName } from './body-limits';
import { OWN_MEDIA_TYPE } from './own-media-type.decorator';

/** Who may call a route: anyone, any valid key, or the admin key only. */
export type RouteAccess = 'public' | 'key' | 'admin';

declare module 'fastify' {
  /** What `stampRoutePolicies` writes into each controller route's `config`. */
  interface FastifyContextConfig {
    access?: RouteAccess;
    bodyLimitName?: BodyLimitName;
    /** `@OwnMediaType()`: the route picks its media type, content negotiation leaves it alone. */
    ownMediaType?: boolean;
  }
}

/**
 * Copies what the decorators say of each route (`@Public()`, `@AdminOnly()` on the method or its
 * controller, `@BodyLimit()`, `@OwnMediaType()`) into the route's Fastify `config`, through Nest's `@RouteConfig`
 * metadata. Fastify then knows it before anything of the request is read: the `onRoute` hook
 * gives the route its body limit, and the `onRequest` hook reads its access from
 * `request.routeOptions.config`, without a list of paths to keep in step with the controllers.
 * Runs once at start, before Nest registers the routes.
 */
export function stampRoutePolicies(controllers: readonly Type[]): void {
  const reflector = new Reflector();
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
      const targets = [handler, controller];
      const access: RouteAccess = reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ? 'public' : reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) ? 'admin' : 'key';
      const bodyLimit = reflector.getAllAndOverride<BodyLimitName | undefined>(BODY_LIMIT, targets) ?? 'small';
      const ownMediaType = reflector.getAllAndOverride<boolean | undefined>(OWN_MEDIA_TYPE, targets) === true;
      const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as Record<string, unknown>;
      Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, access, bodyLimitName: bodyLimit, ownMediaType }, handler);
    }
  }
}

/**
 * The access of the route a request matched. A request no controller route matched (an unknown
 * path, the CORS route for a request that is not a preflight) needs a key like any API route:
 * refusing what is not known to be public is the safe side.
 */
export function routeAccessOf(request: FastifyRequest): RouteAccess {
  return request.routeOptions.config?.access ?? 'key';
}
