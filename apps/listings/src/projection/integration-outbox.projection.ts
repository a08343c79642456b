import { integrationSubjectOf, type ListingsIntegrationEvent, type PropertyDocument } from '@immo/contracts';
import type { DocumentStore } from '@immo/document-store';
import { ADVERT_EVENT_TYPES, toIntegrationEvent, webhookEventId } from '../domain';
import type { AdvertChange } from './advert-states.projection';
import type { PropertyChange } from './property-documents.projection';
import { OUTBOX_COLLECTION, outboxId, type OutboxRecord } from './read-models';
import type { UnitOfWork } from './unit-of-work';

/** Top-level document fields compared to tell subscribers what changed. */
const WATCHED_FIELDS: (keyof PropertyDocument)[] = [
  'title', 'description', 'propertyType', 'transactionType', 'publisherTypes', 'price', 'pricePerMeter', 'surface',
  'landSurface', 'room', 'bedroom', 'floor', 'elevator', 'furnished', 'expired', 'expiredAt', 'locations', 'pictures', 'city',
];

export function changedFields(before: PropertyDocument, after: PropertyDocument): string[] {
  const changed = WATCHED_FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field])).map(String);
  if (before.adverts.length !== after.adverts.length) changed.push('adverts');
  return changed;
}

/**
 * The integration events one advert change causes (`property`: the document before and after it;
 * the same document twice when the documents were already past this change), with ids that are stable across replays:
 * `property-created:<property>`, `property-changed:<property>:<position>`, and the advert's
 * webhook event (`<advert>:<revision>:<kind>`).
 */
export function integrationEventsOf(change: AdvertChange, property: PropertyChange | null): ListingsIntegrationEvent[] {
  const { event, advertId, domainEvent, previous } = change;
  const propertyId = change.next.propertyId;
  // Without its property's document no event can be sent: a matcher tests the document.
  if (propertyId === null || property === null) return [];
  const at = domainEvent.data.at;
  const out: ListingsIntegrationEvent[] = [];
  if (!property.before) {
    out.push({ id: `property-created:${propertyId}`, type: 'property.created', propertyId, occurredAt: at, document: property.after });
  } else {
    const fields = changedFields(property.before, property.after);
    if (fields.length > 0) {
      out.push({ id: `property-changed:${propertyId}:${event.position}`, type: 'property.changed', propertyId, occurredAt: at, changedFields: fields, document: property.after });
    }
  }
  if (domainEvent.type === ADVERT_EVENT_TYPES.assignedToProperty && (previous?.propertyId ?? null) === null) {
    // The advert's creation is announced once it belongs to a property (same commit as its publication).
    out.push({
      id: webhookEventId(advertId, 0, 'property.ad.create'),
      type: 'advert.event',
      kind: 'property.ad.create',
      propertyId,
      advertId,
      occurredAt: change.next.createdAt,
      adEvent: null,
      changedFields: [],
      document: property.after,
    });
  } else {
    const integration = toIntegrationEvent(advertId, event.revision, domainEvent);
    if (integration && integration.kind !== 'property.ad.create') {
      out.push({
        id: integration.id,
        type: 'advert.event',
        kind: integration.kind,
        propertyId,
        advertId,
        occurredAt: integration.occurredAt,
        adEvent: integration.adEvent,
        changedFields: integration.changedFields,
        document: property.after,
      });
    }
  }
  return out;
}

/**
 * The integration outbox: the events to publish for each change, written in the same commit as
 * the change itself and published from there by the relay. Its checkpoint survives read-model
 * rebuilds, so a rebuild does not announce the past again.
 */
export class IntegrationOutboxProjection {
  static readonly NAME = 'integration-outbox';
  readonly name = IntegrationOutboxProjection.NAME;

  constructor(store: DocumentStore) {
    store.collection<OutboxRecord>(OUTBOX_COLLECTION);
  }

  apply(change: AdvertChange, property: PropertyChange | null, uow: UnitOfWork): number {
    const events = integrationEventsOf(change, property);
    // The events of one change carry the same document: it is serialized once for all of them.
    const documentJson = events.length > 0 && property ? JSON.stringify(property.after) : '';
    events.forEach((event, index) => {
      uow.put(OUTBOX_COLLECTION.name, {
        _id: outboxId(change.event.position, index),
        revision: change.event.position,
        subject: integrationSubjectOf(event),
        eventId: event.id,
        payload: eventJson(event, documentJson),
      } as OutboxRecord);
    });
    return events.length;
  }
}

/** `JSON.stringify(event)`, with the event's document given already serialized (as its last member). */
export function eventJson(event: ListingsIntegrationEvent, documentJson: string): string {
  const { document: _document, ...rest } = event;
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"document":${documentJson}}`;
}
