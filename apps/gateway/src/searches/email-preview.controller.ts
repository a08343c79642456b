import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { NOTIFIER_SUBJECTS, SEARCHES_SUBJECTS, type AlertEmailView, type EmailPreviewRequest, type SearchRecord, type Violation } from '@immo/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { BracketQuery } from '../http/bracket-query.decorator';
import { ProblemException } from '../http/problem';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { callerOf, uuidParameter } from './search-route-params';
import { OwnMediaType } from '../http/own-media-type.decorator';

/**
 * The page holds text from crawled adverts: escaped when rendered, and on top of that no script
 * may run, nothing but the pictures is loaded, and links open outside the API's origin.
 */
export const EMAIL_PREVIEW_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  'img-src https:',
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  'sandbox allow-popups allow-popups-to-escape-sandbox',
].join('; ');

/** `https://api.example.com` as the client reached the gateway (through trusted proxies: their forwarded scheme and host). */
function requestOrigin(request: AuthenticatedRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    throw ProblemException.invalidParameter('Host', 'must be a valid host name, with an optional port');
  }
}

/**
 * `GET /searches/{id}/email-preview`: the alert e-mail the caller's search would get next, as
 * HTML. The search is read as the caller first, so another account's search is a 404 here as
 * everywhere; the notifier renders the e-mail from the search's newest notifications.
 */
@Controller('searches')
@OwnMediaType()
export class EmailPreviewController {
  constructor(private readonly services: ServiceClient) {}

  /** The route reads no parameter: one given is a mistake the caller should hear about, not a silent no-op. */
  @Get(':id/email-preview')
  async preview(@Req() request: AuthenticatedRequest, @Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const violations: Violation[] = Object.keys(query).map((name) => ({ propertyPath: name, message: 'is not a parameter of the e-mail preview (it takes none)' }));
    if (violations.length > 0) throw ProblemException.badRequest(`Invalid query parameters: ${violations.map((v) => v.propertyPath).join(', ')}`, violations);
    const caller = callerOf(request);
    const search = await this.services.request<SearchRecord>(SEARCHES_SUBJECTS.getSearch, { caller, id: uuidParameter(id) });
    const previewRequest: EmailPreviewRequest = {
      accountId: caller.accountId,
      searchId: search.id,
      searchTitle: search.title,
      searchToken: search.token,
      publicBaseUrl: requestOrigin(request),
    };
    const email = await this.services.request<AlertEmailView>(NOTIFIER_SUBJECTS.emailPreview, previewRequest);
    void reply.headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': EMAIL_PREVIEW_CONTENT_SECURITY_POLICY,
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    return email.html;
  }
}
