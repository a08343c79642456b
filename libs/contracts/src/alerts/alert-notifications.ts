import { z } from 'zod';
import { ADVERT_WEBHOOK_KINDS, type AdvertWebhookKind } from '../listings/listings-integration-events';
import { uuidSchema } from '../listings/listings-messages';
import type { City, GeoPoint, PropertyDocument } from '../listings/property-document';
import { propertyDocumentInParisTime } from '../listings/property-document-times';

/**
 * Notifications the searches service's matcher decides and the notifier delivers. The matcher
 * writes each one to its outbox in the same commit as the match it comes from, and publishes it
 * on JetStream with its id as `Nats-Msg-Id`; the notifier records it (dropping an id it already
 * holds) before its first attempt. The id is the `webhook-id` every attempt sends.
 */
export const ALERT_NOTIFICATIONS_STREAM = 'ALERT_NOTIFICATIONS';
export const ALERT_NOTIFICATIONS_SUBJECT = 'alerts.notifications.v1';

/** `match` for a Match payload, an advert event kind for an Event payload. */
export const NOTIFICATION_KINDS = ['match', ...ADVERT_WEBHOOK_KINDS] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an ISO 8601 date' });

export const alertNotificationSchema = z.object({
  id: uuidSchema,
  searchId: uuidSchema,
  accountId: uuidSchema,
  kind: z.enum(NOTIFICATION_KINDS),
  /** The search's `endpointRecipient` (matches) or `eventEndpoint` (events) when it was decided; null: the live stream only. */
  endpoint: z.string().url().nullable(),
  propertyId: uuidSchema,
  matchId: uuidSchema,
  /** The JSON body to POST (a `MatchPayload` or an `EventPayload`), contact data already removed when the search hides it. */
  payload: z.string().min(2),
  createdAt: isoDate,
  /**
   * The search's `notificationRecipient` when it was decided, with what its e-mail needs (the
   * search's title, and its unsubscribe token for the one-click link); null: no e-mail. Absent
   * from notifications decided before e-mail alerts existed.
   */
  email: z
    .object({ recipient: z.string().min(3).max(254), searchTitle: z.string().max(200).nullable(), unsubscribeToken: z.string().min(1).max(200) })
    .nullable()
    .default(null),
});
export type AlertNotification = z.infer<typeof alertNotificationSchema>;

/** Spec (City): in webhook payloads the city's `locations` key is `location`. */
export type WebhookCity = Omit<City, 'locations'> & { location: GeoPoint | null };
export type WebhookPropertyDocument = Omit<PropertyDocument, 'city'> & { city: WebhookCity | null };

/**
 * The property document as webhooks (and the live stream) carry it: times in Paris time, the
 * city's point under `location`, and without the adverts' contact when the search hides it
 * (`hidePropertyContact`).
 */
export function webhookPropertyDocument(stored: PropertyDocument, hideContact: boolean): WebhookPropertyDocument {
  const document = propertyDocumentInParisTime(stored);
  const { city, ...rest } = document;
  const adverts = hideContact ? document.adverts.map((advert) => ({ ...advert, contact: null })) : document.adverts;
  if (city === null) return { ...rest, adverts, city: null };
  const { locations, ...place } = city;
  return { ...rest, adverts, city: { ...place, location: locations } };
}

/** Spec: Match resource, sent alone to `endpointRecipient` and inside every Event payload. */
export interface MatchPayload {
  '@context': '/contexts/Match';
  '@id': string;
  '@type': 'Match';
  property: string;
  search: string;
  createdAt: string;
  updatedAt: string;
  propertyDocument: WebhookPropertyDocument;
}

/** Spec: Event payload, sent to `eventEndpoint` for the kinds in `subscribedEvents`. */
export interface EventPayload {
  event: AdvertWebhookKind;
  adEvent: { fieldName: string; fieldOldValue: string; fieldNewValue: string; percentVariation: string; createdAt: string };
  match: MatchPayload;
}

export const matchIri = (matchId: string) => `/matches/${matchId}`;

/** A Match as `GET /searches/{id}/matches` lists it; the gateway adds its `propertyDocument` by `propertyId`. */
export interface MatchListItem {
  '@context': '/contexts/Match';
  '@id': string;
  '@type': 'Match';
  id: string;
  property: string;
  propertyId: string;
  search: string;
  createdAt: string;
  updatedAt: string;
}

export interface MatchesPage {
  items: MatchListItem[];
  totalItems: number;
  page: number;
  itemsPerPage: number;
}

/** Request/reply subjects of the notifier, and the live subject of each search. */
export const NOTIFIER_SUBJECTS = {
  deliveries: 'notifier.query.deliveries.v1',
  delivery: 'notifier.query.delivery.v1',
  retryDelivery: 'notifier.cmd.retry-delivery.v1',
  webhookSecret: 'notifier.query.webhook-secret.v1',
  rotateWebhookSecret: 'notifier.cmd.rotate-webhook-secret.v1',
  testWebhook: 'notifier.cmd.test-webhook.v1',
  /** Operators: seal every stored webhook secret under the first key of SECRETS_KEY (a key rotation). */
  rekeyWebhookSecrets: 'notifier.cmd.rekey-webhook-secrets.v1',
  /** A search's notifications recorded after a given one (the live stream's `Last-Event-ID` resume). */
  recentNotifications: 'notifier.query.recent-notifications.v1',
  /** The HTML of the alert e-mail a search would get next (`GET /searches/{id}/email-preview`). */
  emailPreview: 'notifier.query.email-preview.v1',
  /** Core NATS: each notification of a search, once recorded (the live stream). */
  live: (searchId: string) => `notifier.live.${searchId}`,
} as const;

export const deliveriesRequestSchema = z
  .object({ searchId: uuidSchema, page: z.number().int().min(1).default(1), itemsPerPage: z.number().int().min(1).max(100).default(30) })
  .strict();
export const deliveryRequestSchema = z.object({ searchId: uuidSchema, deliveryId: uuidSchema }).strict();
export const webhookSecretRequestSchema = z.object({ accountId: uuidSchema }).strict();
export const rekeyWebhookSecretsRequestSchema = z.object({}).strict();
export const testWebhookRequestSchema = z
  .object({
    accountId: uuidSchema,
    endpoint: z.string().min(1).max(2000),
    /** Absent: a Match is sent (the original service's rule). */
    eventType: z.enum(ADVERT_WEBHOOK_KINDS).optional(),
    dryRun: z.boolean().default(false),
  })
  .strict();
export const recentNotificationsRequestSchema = z
  .object({ searchId: uuidSchema, afterId: uuidSchema.nullable(), limit: z.number().int().min(1).max(500).default(100) })
  .strict();
/**
 * The gateway has checked that the search is the caller's and passes what the e-mail shows of
 * it. `publicBaseUrl`: the origin the unsubscribe link points to (the request's own, for now).
 */
export const emailPreviewRequestSchema = z
  .object({
    accountId: uuidSchema,
    searchId: uuidSchema,
    searchTitle: z.string().max(1000).nullable(),
    searchToken: z.string().min(1).max(200).nullable(),
    publicBaseUrl: z.string().url().max(500).refine((value) => /^https?:\/\//i.test(value), { message: 'must be an http(s) URL' }),
  })
  .strict();
export type EmailPreviewRequest = z.infer<typeof emailPreviewRequestSchema>;

/** An alert e-mail as it would be sent. */
export interface AlertEmailView {
  subject: string;
  html: string;
  text: string;
}

/** `streamed`: a notification of a search without the endpoint for it, sent to its live stream only. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'streamed';

export interface DeliveryAttempt {
  at: string;
  /** The receiver's status (HTTP; for an e-mail, the SMTP server's reply code); null when none came back (refused, timed out, unreachable). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  searchId: string;
  /** `webhook`: one notification POSTed to `endpoint`; `email`: an e-mail to `endpoint` (`mailto:…`) listing `notifications`. */
  channel: 'webhook' | 'email';
  kind: NotificationKind;
  endpoint: string | null;
  /** The notifications an e-mail lists (their ids); for a webhook, its own id. */
  notifications: string[];
  status: DeliveryStatus;
  createdAt: string;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  attempts: DeliveryAttempt[];
}

export interface DeliveriesPage {
  items: DeliveryView[];
  totalItems: number;
  page: number;
  itemsPerPage: number;
}

/** One notification as the live stream sends it: its id (`Last-Event-ID`), its kind and the webhook body. */
export interface LiveNotification {
  id: string;
  kind: NotificationKind;
  payload: string;
}

export interface WebhookSecretView {
  secret: string;
}

/** What `secrets rekey` did: no secret changes, only the key the stored ones are sealed under. */
export interface WebhookSecretsRekeyed {
  /** The key every record that could be opened is now sealed under. */
  keyId: string;
  /** Records sealed again under it (or sealed for the first time, when stored plain). */
  reencrypted: number;
  /** Accounts whose record could not be opened: sealed under a key SECRETS_KEY no longer holds, or altered. */
  unreadable: string[];
}

/** `GET /webhook-tester`: the original service's `{success, code, error}` plus what helps debugging. */
export interface WebhookTestResult {
  success: boolean;
  code: number | null;
  error: string | null;
  durationMs: number;
  webhookId: string;
}

export interface WebhookDryRun {
  dryRun: true;
  endpoint: string;
  headers: Record<string, string>;
  payload: unknown;
}
