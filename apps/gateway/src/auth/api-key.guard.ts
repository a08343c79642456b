import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '../http/problem';
import { toHttpProblem } from '../rpc/service-client';
import { AccountKeys } from './account-keys';
import { ApiKeyRegistry, type ApiKeyIdentity } from './api-key.registry';
import { ADMIN_ONLY, IS_PUBLIC } from './public.decorator';

export type AuthenticatedRequest = FastifyRequest & { apiKey?: ApiKeyIdentity };

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly registry: ApiKeyRegistry,
    private readonly accountKeys: AccountKeys,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    const identity = presented ? (this.registry.identify(presented) ?? (await this.accountIdentity(presented))) : null;
    if (!identity) throw new ProblemException(401, 'A valid API key is required in the X-API-KEY header.');
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !identity.admin) {
      throw new ProblemException(403, 'This operation needs the admin API key.');
    }
    request.apiKey = identity;
    return true;
  }

  private async accountIdentity(apiKey: string): Promise<ApiKeyIdentity | null> {
    try {
      const holder = await this.accountKeys.holderOf(apiKey);
      return holder ? { keyId: holder.keyId, accountId: holder.accountId, admin: false } : null;
    } catch (error) {
      // The searches service is down: say so (503), rather than calling a valid key invalid.
      throw toHttpProblem(error);
    }
  }
}
