import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ADVERT_WEBHOOK_KINDS, NOTIFIER_SUBJECTS, type AdvertWebhookKind, type Violation, type WebhookDryRun, type WebhookSecretView, type WebhookTestResult } from '@immo/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { BracketQuery } from '../http/bracket-query.decorator';
import { ProblemException } from '../http/problem';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { callerOf } from '../searches/search-route-params';

/** The tester may wait for a slow receiver: the notifier's own timeout, and a margin. */
const TESTER_TIMEOUT_MS = 20_000;
const TESTER_PARAMETERS = new Set(['endpoint', 'eventType', 'dryRun']);

/**
 * The caller's webhook signing secret (Standard Webhooks), its rotation, and the tester
 * (spec: GET /webhook-tester).
 */
@Controller()
export class WebhookAccountController {
  constructor(private readonly services: ServiceClient) {}

  @Get('account/webhook-secret')
  secret(@Req() request: AuthenticatedRequest): Promise<WebhookSecretView> {
    return this.services.request<WebhookSecretView>(NOTIFIER_SUBJECTS.webhookSecret, callerOf(request));
  }

  /** A new secret; the previous one keeps signing beside it for the overlap (24 h by default). */
  @Post('account/webhook-secret/rotate')
  @HttpCode(200)
  rotate(@Req() request: AuthenticatedRequest): Promise<WebhookSecretView> {
    return this.services.request<WebhookSecretView>(NOTIFIER_SUBJECTS.rotateWebhookSecret, callerOf(request));
  }

  /**
   * Unknown parameters are refused rather than ignored: a misspelt `eventType` would otherwise
   * send a Match when an Event was meant.
   */
  @Get('webhook-tester')
  test(@Req() request: AuthenticatedRequest, @BracketQuery() query: ParsedQuery): Promise<WebhookTestResult | WebhookDryRun> {
    const violations: Violation[] = Object.keys(query)
      .filter((name) => !TESTER_PARAMETERS.has(name))
      .map((name) => ({ propertyPath: name, message: 'is not a parameter of the webhook tester (endpoint, eventType, dryRun)' }));
    const { endpoint, eventType, dryRun } = query;
    if (typeof endpoint !== 'string' || endpoint === '') violations.push({ propertyPath: 'endpoint', message: 'is required: the https:// URL to send the sample to' });
    if (eventType !== undefined && eventType !== '' && !ADVERT_WEBHOOK_KINDS.includes(eventType as AdvertWebhookKind)) {
      violations.push({ propertyPath: 'eventType', message: `must be one of ${ADVERT_WEBHOOK_KINDS.join(', ')} (or absent for a Match)` });
    }
    if (dryRun !== undefined && dryRun !== 'true' && dryRun !== 'false') violations.push({ propertyPath: 'dryRun', message: 'must be true or false' });
    if (violations.length > 0) throw ProblemException.badRequest(`Invalid query parameters: ${violations.map((v) => v.propertyPath).join(', ')}`, violations);
    return this.services.request<WebhookTestResult | WebhookDryRun>(
      NOTIFIER_SUBJECTS.testWebhook,
      {
        ...callerOf(request),
        endpoint,
        ...(typeof eventType === 'string' && eventType !== '' ? { eventType } : {}),
        dryRun: dryRun === 'true',
      },
      TESTER_TIMEOUT_MS,
    );
  }
}
