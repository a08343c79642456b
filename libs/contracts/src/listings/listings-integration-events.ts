import type { PropertyDocument } from './property-document';

/**
 * Integration events the listings service publishes on JetStream after each projected change,
 * for the searches service. Every message carries a stable `id`, also sent as `Nats-Msg-Id`, so
 * JetStream and consumers drop duplicates after a projection replay.
 */
export const LISTINGS_INTEGRATION_STREAM = 'LISTINGS_INTEGRATION';
export const LISTINGS_INTEGRATION_SUBJECTS = {
  propertyCreated: 'listings.events.property-created.v1',
  propertyChanged: 'listings.events.property-changed.v1',
  /** One subject per webhook kind: `listings.events.advert.ad.update.price.v1`, ... */
  advertEvent: (kind: string) => `listings.events.advert.${kind}.v1`,
  all: 'listings.events.>',
} as const;

export interface PropertyCreatedEvent {
  id: string;
  type: 'property.created';
  propertyId: string;
  occurredAt: string;
  document: PropertyDocument;
}

export interface PropertyChangedEvent {
  id: string;
  type: 'property.changed';
  propertyId: string;
  occurredAt: string;
  /** Top-level document fields whose value changed. */
  changedFields: string[];
  document: PropertyDocument;
}

export interface AdvertWebhookEvent {
  id: string;
  type: 'advert.event';
  /** One of the six webhook kinds (`ad.update.price`, `property.ad.create`, ...). */
  kind: string;
  propertyId: string;
  advertId: string;
  occurredAt: string;
  adEvent: { fieldName: string; fieldOldValue: string; fieldNewValue: string; percentVariation: string; createdAt: string } | null;
  changedFields: string[];
}

export type ListingsIntegrationEvent = PropertyCreatedEvent | PropertyChangedEvent | AdvertWebhookEvent;
