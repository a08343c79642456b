import { ADVERT_WEBHOOK_KINDS, type AdvertWebhookKind } from '@immo/contracts';
import { ref, type JsonSchema } from './json-schema';
import { operationIdOf } from './operation-ids';

/** What each event kind reports (the spec's table of event kinds). */
const EVENT_KIND_SUMMARIES: Readonly<Record<AdvertWebhookKind, string>> = {
  'property.ad.create': 'A new advert of a property that meets the search',
  'property.ad.update': 'An advert of a property that meets the search was updated',
  'ad.update.price': "An advert's price changed",
  'ad.update.surface': "An advert's surface changed",
  'ad.update.pictures': "An advert's pictures changed",
  'ad.update.expired': 'An advert expired',
};

/** Standard Webhooks (https://www.standardwebhooks.com): the headers every delivery carries. */
const SIGNING_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The delivery id, the same on every attempt (drop a repeated one). `GET /searches/{id}/deliveries/{deliveryId}` shows its attempts.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Seconds since the Unix epoch when this attempt was signed; refuse one too far from your clock to stop replays.',
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1767261600'] },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the account secret (`GET /account/webhook-secret`, ' +
      'the base64 after `whsec_`). Space-separated, one per secret, while a rotated secret still signs (24 h). Any Standard Webhooks library verifies it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
];

const RETRY_AFTER = { description: 'Seconds, or an HTTP date: the next attempt waits at least this long', schema: { type: 'string' } };

/** How the notifier reads the receiver's answer (the delivery rules). */
const RECEIVER_RESPONSES = {
  '2XX': { description: 'Accepted within 15 s: the delivery is done.' },
  '410': { description: "Gone: the search's notifications are turned off; nothing more is sent to it." },
  '429': { description: 'Retried after `Retry-After` (at least the usual interval).', headers: { 'Retry-After': RETRY_AFTER } },
  '503': { description: 'Retried after `Retry-After` (at least the usual interval).', headers: { 'Retry-After': RETRY_AFTER } },
  default: {
    description:
      'Anything else, a redirect included (redirects are not followed), or no answer within 15 s: retried 5 times an hour apart, then the ' +
      'delivery is failed and kept in the delivery log. A circuit breaker per host defers deliveries to a failing receiver.',
  },
};

function webhook(name: string, summary: string, description: string, body: JsonSchema, tag: string): Record<string, unknown> {
  return {
    post: {
      tags: [tag],
      summary,
      operationId: operationIdOf('webhook', name),
      description,
      parameters: SIGNING_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: body } } },
      responses: RECEIVER_RESPONSES,
      security: [],
    },
  };
}

/** OpenAPI 3.1 `webhooks`: what the notifier POSTs to a saved search's endpoints. */
export function webhooks(): Record<string, unknown> {
  const result: Record<string, unknown> = {
    match: webhook(
      'match',
      'A property newly meets the search (Match payload)',
      'Sent to the search\'s `endpointRecipient` once per property that meets its criteria after it was saved, new or changed into ' +
        'them. Also listed by `GET /searches/{id}/matches` and streamed by `GET /searches/{id}/stream` (`event: match`).',
      ref('MatchPayload'),
      'webhooks',
    ),
  };
  for (const kind of ADVERT_WEBHOOK_KINDS) {
    result[kind] = webhook(
      kind,
      `${EVENT_KIND_SUMMARIES[kind]} (Event payload)`,
      `Sent to the search's \`eventEndpoint\` when \`subscribedEvents\` holds \`${kind}\` and the property meets the search's criteria.`,
      { allOf: [ref('EventPayload'), { type: 'object', properties: { event: { type: 'string', const: kind } } }] },
      'webhooks',
    );
  }
  return result;
}
