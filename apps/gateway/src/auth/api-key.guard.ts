import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '../http/problem';
import { routeAccessOf } from '../http/route-policy';
import type { ApiKeyIdentity } from './api-key.registry';

export type AuthenticatedRequest = FastifyRequest & { apiKey?: ApiKeyIdentity };

/**
 * Keys are checked before Nest sees the request, in Fastify's `onRequest` hook (see
 * `authenticateBeforeBody`), which leaves the identity on the request. This guard only makes sure
 * of it: a route that needs a key, reached by a request that carries no identity (a gateway put
 * together without that hook), is refused rather than served. It looks no key up.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (routeAccessOf(request) === 'public' || request.apiKey !== undefined) return true;
    throw new ProblemException(401, 'A valid API key is required in the X-API-KEY header.');
  }
}
