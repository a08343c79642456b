import { integrationSubjectOf, type ListingsIntegrationEvent } from '@immo/contracts';
import type { DocumentStore } from '@immo/document-store';
import { ADVERT_EVENT_TYPES, changedFields, toIntegrationEvent, webhookEventId } from '../domain';
import type { AdvertChange } from './advert-states.projection';
import type { PropertyChange } from './property-documents.projection';
import { OUTBOX_COLLECTION, outboxId, type OutboxRecord } from './read-models';
import type { UnitOfWork } from './unit-of-work';

/**
 * The integration event one advert change causes, if any (`property`: the document before and
 * after it; the same document twice when the documents were already past this change), with an id
 * that is stable across replays. A change is announced once: by its advert's webhook event
 * (`<advert>:<revision>:<kind>`) when it has one, which carries the property's document as the
 * change left it, so a matcher learns from it everything a property event would have told it;
 * otherwise, when the property was created or a watched field of it moved, by
 * `property-created:<property>` or `property-changed:<property>:<position>`. (Announcing both
 * doubled what every change cost to write, publish, store and match, for the same decisions.)
 */
export function integrationEventOf(change: AdvertChange, property: PropertyChange | null): ListingsIntegrationEvent | null {
  const { event, advertId, domainEvent, previous } = change;
  const propertyId = change.next.propertyId;
  // Without its property's document no event can be sent: a matcher tests the document.
  if (propertyId === null || property === null) return null;
  // A recrawl that moved only crawl times has nothing to tell anyone (and no webhook kind).
  if (property.crawlOnly) return null;
  const document = property.after;
  if (domainEvent.type === ADVERT_EVENT_TYPES.assignedToProperty && (previous?.propertyId ?? null) === null) {
    // The advert's creation is announced once it belongs to a property (same commit as its publication).
    return {
      id: webhookEventId(advertId, 0, 'property.ad.create'),
      type: 'advert.event',
      kind: 'property.ad.create',
      propertyId,
      advertId,
      occurredAt: change.next.createdAt,
      adEvent: null,
      changedFields: [],
      document,
    };
  }
  const integration = toIntegrationEvent(advertId, event.revision, domainEvent);
  if (integration && integration.kind !== 'property.ad.create') {
    const { kind, occurredAt, adEvent, changedFields: fields } = integration;
    return { id: integration.id, type: 'advert.event', kind, propertyId, advertId, occurredAt, adEvent, changedFields: fields, document };
  }
  const at = domainEvent.data.at;
  if (!property.before) return { id: `property-created:${propertyId}`, type: 'property.created', propertyId, occurredAt: at, document };
  const fields = changedFields(property.before, document);
  if (fields.length === 0) return null;
  return { id: `property-changed:${propertyId}:${event.position}`, type: 'property.changed', propertyId, occurredAt: at, changedFields: fields, document };
}

/**
 * The integration outbox: the event to publish for each change that has one, written in the same commit as
 * the change itself and published from there by the relay. Its checkpoint survives read-model
 * rebuilds, so a rebuild does not announce the past again.
 */
export class IntegrationOutboxProjection {
  static readonly NAME = 'integration-outbox';
  readonly name = IntegrationOutboxProjection.NAME;

  constructor(store: DocumentStore) {
    store.collection<OutboxRecord>(OUTBOX_COLLECTION);
  }

  /** Puts the change's integration event, if any, in the outbox, with its log position; returns how many it put (0 or 1). */
  apply(change: AdvertChange, property: PropertyChange | null, uow: UnitOfWork): number {
    const announced = integrationEventOf(change, property);
    if (announced === null) return 0;
    const event: ListingsIntegrationEvent = { ...announced, position: change.event.position };
    uow.put(OUTBOX_COLLECTION.name, {
      _id: outboxId(change.event.position, 0),
      revision: change.event.position,
      subject: integrationSubjectOf(event),
      eventId: event.id,
      payload: JSON.stringify(event),
    } as OutboxRecord);
    return 1;
  }
}
