import { z } from 'zod';
import type { PropertyDocument } from './property-document';

/**
 * Integration events the listings service publishes on JetStream, from its outbox, after each
 * projected change, for the searches service. Every message carries a stable `id`, also sent as
 * `Nats-Msg-Id`: JetStream drops a republished one within its duplicate window, and consumers
 * drop older duplicates by id (a replay or a crash between publish and outbox clean-up publishes
 * the same id again, never a different event under it).
 *
 * Each projected change is announced by one event at most: the advert's webhook event when the
 * change has one (`advert.event`, carrying the property's document as the change left it);
 * otherwise `property.created` when the change founded the property, or `property.changed` when it
 * moved a watched field of the document (an advert regrouped, for instance).
 */
export const LISTINGS_INTEGRATION_STREAM = 'LISTINGS_INTEGRATION';
export const LISTINGS_INTEGRATION_SUBJECTS = {
  propertyCreated: 'listings.events.property-created.v1',
  propertyChanged: 'listings.events.property-changed.v1',
  /** One subject per webhook kind: `listings.events.advert.ad.update.price.v1`, ... */
  advertEvent: (kind: AdvertWebhookKind) => `listings.events.advert.${kind}.v1`,
  all: 'listings.events.>',
} as const;

/** The six webhook kinds a saved search can subscribe to. */
export const ADVERT_WEBHOOK_KINDS = [
  'property.ad.create',
  'property.ad.update',
  'ad.update.price',
  'ad.update.surface',
  'ad.update.pictures',
  'ad.update.expired',
] as const;
export type AdvertWebhookKind = (typeof ADVERT_WEBHOOK_KINDS)[number];

// The document itself is the PropertyDocument contract, built by the listings service; consumers
// check that it is an object with the property's id rather than re-validating every field.
const propertyDocumentSchema = z.custom<PropertyDocument>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { uuid?: unknown }).uuid === 'string',
  { message: 'must be a PropertyDocument' },
);
const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an ISO 8601 date' });
/**
 * The position in the listings event log of the change an event announces: a property's changes
 * come in position order, and each change is announced by one event at most, so a consumer keeps
 * the newest position it applied per property and drops an event at or before it (a failed
 * publish retried, or a redelivery, can reorder or repeat events).
 * Optional: events published before it was added have none, and are applied as they come.
 */
const position = z.number().int().nonnegative().optional();

export const propertyCreatedEventSchema = z.object({
  id: z.string().min(1),
  type: z.literal('property.created'),
  propertyId: z.string().uuid(),
  occurredAt: isoDate,
  position,
  document: propertyDocumentSchema,
});

export const propertyChangedEventSchema = z.object({
  id: z.string().min(1),
  type: z.literal('property.changed'),
  propertyId: z.string().uuid(),
  occurredAt: isoDate,
  position,
  /** Top-level document fields whose value changed. */
  changedFields: z.array(z.string()),
  document: propertyDocumentSchema,
});

export const advertWebhookEventSchema = z.object({
  id: z.string().min(1),
  type: z.literal('advert.event'),
  kind: z.enum(ADVERT_WEBHOOK_KINDS),
  propertyId: z.string().uuid(),
  advertId: z.string().uuid(),
  occurredAt: isoDate,
  position,
  adEvent: z
    .object({ fieldName: z.string(), fieldOldValue: z.string(), fieldNewValue: z.string(), percentVariation: z.string(), createdAt: z.string() })
    .nullable(),
  changedFields: z.array(z.string()),
  /** The property as this change left it: matchers test it against criteria and send it as `match.propertyDocument`. */
  document: propertyDocumentSchema,
});

export const listingsIntegrationEventSchema = z.discriminatedUnion('type', [
  propertyCreatedEventSchema,
  propertyChangedEventSchema,
  advertWebhookEventSchema,
]);

export type PropertyCreatedEvent = z.infer<typeof propertyCreatedEventSchema>;
export type PropertyChangedEvent = z.infer<typeof propertyChangedEventSchema>;
export type AdvertWebhookEvent = z.infer<typeof advertWebhookEventSchema>;
export type ListingsIntegrationEvent = z.infer<typeof listingsIntegrationEventSchema>;

/** The subject an integration event is published on. */
export function integrationSubjectOf(event: ListingsIntegrationEvent): string {
  switch (event.type) {
    case 'property.created':
      return LISTINGS_INTEGRATION_SUBJECTS.propertyCreated;
    case 'property.changed':
      return LISTINGS_INTEGRATION_SUBJECTS.propertyChanged;
    case 'advert.event':
      return LISTINGS_INTEGRATION_SUBJECTS.advertEvent(event.kind);
  }
}
