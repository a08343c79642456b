import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { SEARCHES_SUBJECTS } from '@immo/contracts';
import { Public } from '../auth/public.decorator';
import { ProblemException } from '../http/problem';
import { validateBody } from '../http/query-params';
import { ServiceClient } from '../rpc/service-client';

/** Unsubscribe links are clicked, not scripted: a few per minute per address is plenty, and tokens cannot be guessed by trying. */
export const UNSUBSCRIBE_LIMIT = { requests: 10, windowMs: 60_000 };

const body = z
  .object({
    searchToken: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    reason: z.string().max(200, 'must be at most 200 characters').optional(),
    comment: z.string().max(2000, 'must be at most 2000 characters').optional(),
  })
  .strict();

/** The original service's unsubscribe link target: no key, the search's token authorises it. */
@Controller('public/search')
export class UnsubscribeController {
  private readonly attempts = new LRUCache<string, { count: number }>({ max: 100_000, ttl: UNSUBSCRIBE_LIMIT.windowMs });

  constructor(private readonly services: ServiceClient) {}

  @Post('disable-notifications')
  @Public()
  @HttpCode(200)
  async disable(@Req() request: FastifyRequest, @Body() payload: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ success: boolean }> {
    this.countAttempt(request.ip, reply);
    const { searchToken, reason, comment } = validateBody(body, payload);
    const result = await this.services.request<{ success: boolean }>(SEARCHES_SUBJECTS.disableNotifications, {
      searchToken,
      ...(reason !== undefined ? { reason } : {}),
      ...(comment !== undefined ? { comment } : {}),
    });
    if (!result.success) void reply.status(404);
    return result;
  }

  private countAttempt(address: string, reply: FastifyReply): void {
    const entry = this.attempts.get(address);
    if (entry === undefined) {
      this.attempts.set(address, { count: 1 });
      return;
    }
    entry.count++;
    if (entry.count > UNSUBSCRIBE_LIMIT.requests) {
      const retryAfter = Math.ceil((this.attempts.getRemainingTTL(address) || UNSUBSCRIBE_LIMIT.windowMs) / 1000);
      void reply.header('Retry-After', String(retryAfter));
      throw new ProblemException(429, `Too many requests; retry in ${retryAfter} s.`);
    }
  }
}
