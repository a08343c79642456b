import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { SEARCHES_SUBJECTS } from '@immo/contracts';
import { Public } from '../auth/public.decorator';
import { ProblemException } from '../http/problem';
import { BracketQuery } from '../http/bracket-query.decorator';
import { validateBody } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { OwnMediaType } from '../http/own-media-type.decorator';

/** Unsubscribe links are clicked, not scripted: a few per minute per address is plenty, and tokens cannot be guessed by trying. */
export const UNSUBSCRIBE_LIMIT = { requests: 10, windowMs: 60_000 };

const body = z
  .object({
    searchToken: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    reason: z.string().max(200, 'must be at most 200 characters').optional(),
    comment: z.string().max(2000, 'must be at most 2000 characters').optional(),
  })
  .strict();

/**
 * RFC 8058 one-click unsubscribe, as mail clients send it: a form POST of
 * `List-Unsubscribe=One-Click` to the link of the e-mail's `List-Unsubscribe` header, the token in
 * the link's query.
 */
const oneClick = z
  .object({
    searchToken: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    'List-Unsubscribe': z.literal('One-Click', { error: 'must be One-Click' }).optional(),
  })
  .strict();

const FORM = 'application/x-www-form-urlencoded';

/**
 * The original service's unsubscribe link target: no key, the search's token authorises it. The
 * link an alert e-mail carries takes a form POST too (one click in a mail client), and answers a
 * GET with a page asking to confirm: a GET never unsubscribes, since link scanners and previews
 * open links nobody clicked.
 */
@Controller('public/search')
@OwnMediaType()
export class UnsubscribeController {
  private readonly attempts = new LRUCache<string, { count: number }>({ max: 100_000, ttl: UNSUBSCRIBE_LIMIT.windowMs });

  constructor(private readonly services: ServiceClient) {}

  @Post('disable-notifications')
  @Public()
  @HttpCode(200)
  async disable(
    @Req() request: FastifyRequest,
    @Body() payload: unknown,
    @BracketQuery() query: ParsedQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ success: boolean } | string> {
    this.countAttempt(request.ip, reply);
    if ((request.headers['content-type'] ?? '').startsWith(FORM)) return this.oneClick(request, query, payload, reply);
    const { searchToken, reason, comment } = validateBody(body, payload);
    const result = await this.services.request<{ success: boolean }>(SEARCHES_SUBJECTS.disableNotifications, {
      searchToken,
      ...(reason !== undefined ? { reason } : {}),
      ...(comment !== undefined ? { comment } : {}),
    });
    if (!result.success) void reply.status(404);
    return result;
  }

  /** The e-mail's link opened in a browser: a page with the button that does it. */
  @Get('disable-notifications')
  @Public()
  confirm(@BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): string {
    const { searchToken } = validateBody(oneClick.pick({ searchToken: true }), query);
    void reply.type('text/html; charset=utf-8');
    return unsubscribePage(
      'Ne plus recevoir ces alertes ?',
      `<p>Vous ne recevrez plus les alertes de cette recherche, ni par e-mail ni par webhook. Vous pourrez les réactiver en modifiant la recherche.</p>
<form method="post" action="?searchToken=${encodeURIComponent(searchToken)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Me désabonner</button></form>`,
    );
  }

  private async oneClick(request: FastifyRequest, query: ParsedQuery, payload: unknown, reply: FastifyReply): Promise<{ success: boolean } | string> {
    const fields = { ...query, ...(typeof payload === 'object' && payload !== null ? payload : {}) };
    const { searchToken } = validateBody(oneClick, fields);
    const result = await this.services.request<{ success: boolean }>(SEARCHES_SUBJECTS.disableNotifications, { searchToken, reason: 'one-click unsubscribe' });
    if (!result.success) void reply.status(404);
    // A person who clicked the page's button gets a page; a mail client, the JSON answer.
    if (!(request.headers.accept ?? '').includes('text/html')) return result;
    void reply.type('text/html; charset=utf-8');
    return result.success
      ? unsubscribePage('Désabonnement effectué', '<p>Les alertes de cette recherche sont désactivées.</p>')
      : unsubscribePage('Lien inconnu', '<p>Ce lien de désabonnement ne correspond à aucune recherche.</p>');
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

/** A small page in the product's language; `body` is trusted markup made above (the token is URL-encoded). */
function unsubscribePage(title: string, body: string): string {
  return `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2933}button{font-size:1rem;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#c0392b;color:#fff;cursor:pointer}</style>
</head><body><h1>${title}</h1>${body}</body></html>`;
}
