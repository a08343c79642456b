/**
 * `GET /webhook-tester`: sends one sample notification to a URL the caller chooses, signed with
 * the caller's secret like real deliveries, through the same HTTPS client and address guard. No
 * `eventType` sends a Match (the original service's rule); an event kind sends an Event of that
 * kind. The sample is built from a real property when listings has one. `dryRun` answers what
 * would be sent without sending it. Tests are not recorded in the delivery log.
 */
import { randomUUID } from 'node:crypto';
import {
  LISTINGS_SUBJECTS,
  matchIri,
  parisTimestamp,
  webhookPropertyDocument,
  type AdvertWebhookKind,
  type EventPayload,
  type ListPropertiesReply,
  type MatchPayload,
  type PropertyDocument,
  type WebhookDryRun,
  type WebhookTestResult,
} from '@immo/contracts';
import type { NatsRpcClient } from '@immo/service-kit';
import type { GuardedHttpsClient } from '../delivery/guarded-https-client';
import { webhookHeaders } from '../delivery/webhook-signer';
import type { WebhookSecrets } from '../secrets/webhook-secrets';
import { SAMPLE_PROPERTY } from './sample-property';

export interface WebhookTestRequest {
  accountId: string;
  endpoint: string;
  eventType?: AdvertWebhookKind | undefined;
  dryRun: boolean;
}

export class WebhookTester {
  constructor(
    private readonly client: GuardedHttpsClient,
    private readonly secrets: WebhookSecrets,
    private readonly listings: NatsRpcClient,
    private readonly now: () => number = Date.now,
  ) {}

  async test(request: WebhookTestRequest): Promise<WebhookTestResult | WebhookDryRun> {
    const payload = sampleNotification(await this.sampleProperty(), request.eventType, parisTimestamp(this.now()));
    const body = JSON.stringify(payload);
    const webhookId = randomUUID();
    const headers = webhookHeaders(webhookId, Math.floor(this.now() / 1000), body, await this.secrets.signing(request.accountId));
    if (request.dryRun) return { dryRun: true, endpoint: request.endpoint, headers, payload };
    const outcome = await this.client.post(request.endpoint, body, headers);
    const success = outcome.statusCode === 200;
    return {
      success,
      code: outcome.statusCode,
      error: success ? null : (outcome.error ?? `the receiver answered ${outcome.statusCode}, not 200`),
      durationMs: Math.round(outcome.durationMs),
      webhookId,
    };
  }

  /** The newest property, or a fixed sample when listings holds none or cannot answer. */
  private async sampleProperty(): Promise<PropertyDocument> {
    try {
      const page = await this.listings.request<ListPropertiesReply>(LISTINGS_SUBJECTS.listProperties, { query: { itemsPerPage: '1' } }, { timeoutMs: 2000 });
      return page.items[0] ?? SAMPLE_PROPERTY;
    } catch {
      return SAMPLE_PROPERTY;
    }
  }
}

export function sampleNotification(document: PropertyDocument, kind: AdvertWebhookKind | undefined, now: string): MatchPayload | EventPayload {
  const match: MatchPayload = {
    '@context': '/contexts/Match',
    '@id': matchIri(randomUUID()),
    '@type': 'Match',
    property: `/documents/properties/${document.uuid}`,
    search: '/searches/00000000-0000-4000-8000-000000000000',
    createdAt: now,
    updatedAt: now,
    propertyDocument: webhookPropertyDocument(document, false),
  };
  if (kind === undefined) return match;
  return { event: kind, adEvent: sampleAdEvent(kind, document, now), match };
}

function sampleAdEvent(kind: AdvertWebhookKind, document: PropertyDocument, now: string): EventPayload['adEvent'] {
  const change = (fieldName: string, before: number, after: number) => ({
    fieldName,
    fieldOldValue: String(before),
    fieldNewValue: String(after),
    percentVariation: String(Math.round(((after - before) / before) * 10_000) / 100),
    createdAt: now,
  });
  switch (kind) {
    case 'ad.update.price': {
      const price = document.price ?? 250_000;
      return change('price', price, Math.round(price * 0.95));
    }
    case 'ad.update.surface': {
      const surface = document.surface ?? 60;
      return change('surface', surface, surface + 5);
    }
    case 'ad.update.pictures':
      return { fieldName: 'pictures', fieldOldValue: '', fieldNewValue: '', percentVariation: '0', createdAt: now };
    case 'ad.update.expired':
      return { fieldName: 'expired', fieldOldValue: 'false', fieldNewValue: 'true', percentVariation: '0', createdAt: now };
    case 'property.ad.create':
      return { fieldName: 'createdAt', fieldOldValue: '', fieldNewValue: now, percentVariation: '0', createdAt: now };
    case 'property.ad.update':
      return { fieldName: 'description', fieldOldValue: '', fieldNewValue: '', percentVariation: '0', createdAt: now };
  }
}
