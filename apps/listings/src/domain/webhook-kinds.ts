/**
 * From advert domain events to the six webhook event kinds a search can subscribe to.
 *
 * One domain event maps to at most one kind, the most specific one: a price change is sent as
 * `ad.update.price` only, not also as `property.ad.update`, so a search subscribed to both does
 * not receive the same change twice. `property.ad.update` covers every other content change
 * (`AdvertUpdated`) and an expired advert coming back (`AdvertRelisted`). Recrawls and property
 * assignments change nothing a subscriber sees and map to no kind.
 *
 * The integration event id is `<advertId>:<revision>:<kind>`: the stream revision makes it unique
 * per change and stable across projection rebuilds and redeliveries, so the notifier can
 * deduplicate deliveries by id.
 */
import { ADVERT_WEBHOOK_KINDS, type AdvertWebhookKind } from '@immo/contracts';
import { historyEntriesOf } from './advert';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent } from './advert.events';

export const WEBHOOK_EVENT_KINDS = ADVERT_WEBHOOK_KINDS;

export type WebhookEventKind = AdvertWebhookKind;

/** The `adEvent` of a webhook payload: like `AdvertEvent`, but `percentVariation` is a string. */
export interface WebhookAdEvent {
  fieldName: string;
  fieldOldValue: string;
  fieldNewValue: string;
  percentVariation: string;
  createdAt: string;
}

export interface AdvertIntegrationEvent {
  /** `<advertId>:<revision>:<kind>`. */
  id: string;
  kind: WebhookEventKind;
  advertId: string;
  revision: number;
  occurredAt: string;
  /**
   * The change, when it has a field history entry; null for a creation and for updates that only
   * touch untracked fields (texts, contact...): see `changedFields` then.
   */
  adEvent: WebhookAdEvent | null;
  /** Fields changed by the domain event. */
  changedFields: string[];
}

export function webhookKindOf(event: AdvertDomainEvent): WebhookEventKind | null {
  switch (event.type) {
    case ADVERT_EVENT_TYPES.published:
      return 'property.ad.create';
    case ADVERT_EVENT_TYPES.priceChanged:
      return 'ad.update.price';
    case ADVERT_EVENT_TYPES.surfaceChanged:
      return 'ad.update.surface';
    case ADVERT_EVENT_TYPES.picturesChanged:
      return 'ad.update.pictures';
    case ADVERT_EVENT_TYPES.expired:
      return 'ad.update.expired';
    case ADVERT_EVENT_TYPES.updated:
    case ADVERT_EVENT_TYPES.relisted:
      return 'property.ad.update';
    case ADVERT_EVENT_TYPES.recrawled:
    case ADVERT_EVENT_TYPES.assignedToProperty:
      return null;
  }
}

export function webhookEventId(advertId: string, revision: number, kind: WebhookEventKind): string {
  return `${advertId}:${revision}:${kind}`;
}

/**
 * The integration event for a stored advert event, or null when subscribers are not told.
 * @param revision the event's revision in its advert stream.
 */
export function toIntegrationEvent(
  advertId: string,
  revision: number,
  event: AdvertDomainEvent,
): AdvertIntegrationEvent | null {
  const kind = webhookKindOf(event);
  if (kind === null) return null;
  const first = historyEntriesOf(event)[0];
  return {
    id: webhookEventId(advertId, revision, kind),
    kind,
    advertId,
    revision,
    occurredAt: event.data.at,
    adEvent: first
      ? {
          fieldName: first.fieldName,
          fieldOldValue: first.fieldOldValue,
          fieldNewValue: first.fieldNewValue,
          percentVariation: String(first.percentVariation),
          createdAt: first.createdAt,
        }
      : null,
    changedFields: changedFieldsOf(event),
  };
}

function changedFieldsOf(event: AdvertDomainEvent): string[] {
  switch (event.type) {
    case ADVERT_EVENT_TYPES.priceChanged:
      return ['price'];
    case ADVERT_EVENT_TYPES.surfaceChanged:
      return ['surface'];
    case ADVERT_EVENT_TYPES.picturesChanged:
      return ['pictures', 'picturesRemote'];
    case ADVERT_EVENT_TYPES.updated:
      return Object.keys(event.data.changes);
    case ADVERT_EVENT_TYPES.expired:
    case ADVERT_EVENT_TYPES.relisted:
      return ['expired'];
    case ADVERT_EVENT_TYPES.published:
    case ADVERT_EVENT_TYPES.recrawled:
    case ADVERT_EVENT_TYPES.assignedToProperty:
      return [];
  }
}
