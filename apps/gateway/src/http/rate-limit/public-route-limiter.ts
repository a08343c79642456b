import type { OnApplicationShutdown } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { limitOrRefuse } from './rate-limit-reply';
import type { RateLimiter } from './rate-limiter';

/**
 * Requests to public routes that ask a service (no key, so nothing else to count by), per client
 * address (`TRUST_PROXY` decides which), shared by the gateways like the per-key limits.
 */
export class PublicRouteLimiter implements OnApplicationShutdown {
  constructor(private readonly limiter: RateLimiter) {}

  onApplicationShutdown(): Promise<void> {
    return this.limiter.onApplicationShutdown();
  }

  take(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    return limitOrRefuse(this.limiter, `public:${request.ip}`, reply, (limit, retryAfter) => `This address made more than ${limit} to public routes; retry in ${retryAfter} s.`);
  }
}
