/**
 * The bodies webhooks carry (spec: Events, Match payload and Event payload), built from the
 * property document the integration event brought, in its webhook form (the city's point under
 * `location`, as the spec's City says), every time in Paris time (the bodies are signed as they are
 * built, so they are converted here rather than on the way out). A search with `hidePropertyContact` never
 * sends an advert's contact (name, phone, e-mail, agency, reference): subscribers who resell
 * alerts to their own users ask for that.
 */
import { matchIri, parisTimestamp, webhookPropertyDocument, type AdvertWebhookEvent, type AdvertWebhookKind, type EventPayload, type MatchPayload, type PropertyDocument } from '@immo/contracts';

export interface MatchFacts {
  id: string;
  searchId: string;
  propertyId: string;
  createdAt: string;
  updatedAt: string;
}

export function matchPayload(match: MatchFacts, document: PropertyDocument, hideContact: boolean): MatchPayload {
  return {
    '@context': '/contexts/Match',
    '@id': matchIri(match.id),
    '@type': 'Match',
    property: `/documents/properties/${match.propertyId}`,
    search: `/searches/${match.searchId}`,
    createdAt: parisTimestamp(match.createdAt),
    updatedAt: parisTimestamp(match.updatedAt),
    propertyDocument: webhookPropertyDocument(document, hideContact),
  };
}

/**
 * The spec's `adEvent` is always an object of strings. Listings sends none for an advert's
 * creation and for updates of fields without a history (texts, contact): the payload then names
 * what changed (`createdAt` with the creation time, or the changed fields) with empty old and new
 * values and a zero variation, rather than `null`, which receivers written to the spec would reject.
 */
export function adEventOf(event: Pick<AdvertWebhookEvent, 'kind' | 'adEvent' | 'changedFields' | 'occurredAt'>): EventPayload['adEvent'] {
  const occurredAt = parisTimestamp(event.occurredAt);
  if (event.adEvent !== null) return { ...event.adEvent, createdAt: parisTimestamp(event.adEvent.createdAt) };
  if (event.kind === 'property.ad.create') {
    return { fieldName: 'createdAt', fieldOldValue: '', fieldNewValue: occurredAt, percentVariation: '0', createdAt: occurredAt };
  }
  return { fieldName: event.changedFields.join(',') || 'advert', fieldOldValue: '', fieldNewValue: '', percentVariation: '0', createdAt: occurredAt };
}

export function eventPayload(kind: AdvertWebhookKind, adEvent: EventPayload['adEvent'], match: MatchPayload): EventPayload {
  return { event: kind, adEvent, match };
}
