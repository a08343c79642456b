import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '../http/problem';
import { ApiKeyRegistry, type ApiKeyIdentity } from './api-key.registry';
import { ADMIN_ONLY, IS_PUBLIC } from './public.decorator';

export type AuthenticatedRequest = FastifyRequest & { apiKey?: ApiKeyIdentity };

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector, private readonly registry: ApiKeyRegistry) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers['x-api-key'];
    const identity = this.registry.identify(Array.isArray(header) ? header[0] : header);
    if (!identity) throw new ProblemException(401, 'A valid API key is required in the X-API-KEY header.');
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !identity.admin) {
      throw new ProblemException(403, 'This operation needs the admin API key.');
    }
    request.apiKey = identity;
    return true;
  }
}
