import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '../http/problem';
import { RateLimiter } from '../http/rate-limit/rate-limiter';
import { limitOrRefuse } from '../http/rate-limit/rate-limit-reply';
import { toHttpProblem } from '../rpc/service-client';
import { AccountKeys } from './account-keys';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { ApiKeyRegistry, type ApiKeyIdentity } from './api-key.registry';

/**
 * Who a request's `X-API-KEY` is, for a route that needs a key: configured keys first, then
 * account keys (asked of the searches service, cached). Refusals are ProblemExceptions: 401 for
 * a missing or invalid key, 429 for an address over its failed authentications (no key is looked
 * up until its wait is over) or a key over its rate limit, 403 for an admin route without the
 * admin key, 503 when the searches service cannot say. The RateLimit-* and Retry-After headers
 * are set on the reply as it goes.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly registry: ApiKeyRegistry,
    private readonly accountKeys: AccountKeys,
    private readonly limiter: RateLimiter,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async authenticate(request: FastifyRequest, reply: FastifyReply, access: 'key' | 'admin'): Promise<ApiKeyIdentity> {
    const header = request.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    this.refuseIfBlocked(this.failures.blocked(request.ip), reply);
    const identity = presented ? (this.registry.identify(presented) ?? (await this.accountIdentity(presented))) : null;
    if (!identity) {
      this.refuseIfBlocked(await this.failures.failed(request.ip), reply);
      throw new ProblemException(401, 'A valid API key is required in the X-API-KEY header.');
    }
    if (access === 'admin' && !identity.admin) throw new ProblemException(403, 'This operation needs the admin API key.');
    // The operators' key (ingestion, accounts) is not limited: listings applies its own backpressure.
    if (!identity.admin) await this.limit(identity.keyId, reply);
    return identity;
  }

  /** RateLimit-* headers on every answer of a limited key; 429 with Retry-After over the limit. */
  private limit(keyId: string, reply: FastifyReply): Promise<void> {
    return limitOrRefuse(this.limiter, keyId, reply, (limit, retryAfter) => `This API key made more than ${limit}; retry in ${retryAfter} s.`);
  }

  private refuseIfBlocked(retryAfterSeconds: number | null, reply: FastifyReply): void {
    if (retryAfterSeconds === null) return;
    void reply.header('Retry-After', String(retryAfterSeconds));
    throw new ProblemException(429, `Too many failed authentications from this address (more than ${this.failures.perMinute} a minute); retry in ${retryAfterSeconds} s.`);
  }

  private async accountIdentity(apiKey: string): Promise<ApiKeyIdentity | null> {
    try {
      const holder = await this.accountKeys.holderOf(apiKey);
      return holder ? { keyId: holder.keyId, accountId: holder.accountId, admin: false, revocable: true } : null;
    } catch (error) {
      // The searches service is down: say so (503), rather than calling a valid key invalid.
      throw toHttpProblem(error);
    }
  }
}
