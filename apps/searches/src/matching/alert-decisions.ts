/**
 * What one listings integration event means for the saved searches whose criteria its property
 * meets: which Matches are born, and which notifications go out. Pure: the caller finds the
 * searches (through the search index and the criteria library's reference predicate), reads the
 * existing matches and stores the outcome.
 *
 * Rules, from the spec and from what users of the original service complained of:
 * - One Match per search and property, ever: a property that meets the criteria and has none gets
 *   one, whether it was just created or changed into the criteria. Its id derives from the search
 *   and the property, so a redelivered event finds it and decides nothing new.
 * - No back-fill: a fact published before the search was saved is not news to it.
 * - An expired property founds no new Match (a dead listing is not "new"); events of properties
 *   already matched still flow (`ad.update.expired` is one of them).
 * - Notifications only when `notificationEnabled`: the Match to `endpointRecipient`, advert events
 *   of a subscribed kind to `eventEndpoint`; without the endpoint, to the search's live stream only. Their ids derive from what caused them, so a
 *   duplicated integration event gives the same notification id, which the notifier drops.
 */
import { type AlertNotification, type ListingsIntegrationEvent, type NotificationKind } from '@immo/contracts';
import { nameBasedUuid } from '@immo/runtime';
import { adEventOf, eventPayload, matchPayload, type MatchFacts } from './webhook-payloads';

/** Namespace of the ids the matcher derives (matches and notifications). */
const ALERTS_NAMESPACE = '3b7f6c1e-9a2d-4e58-8c0b-5d1a7e4f2c90';

export const matchIdOf = (searchId: string, propertyId: string) => nameBasedUuid(`${searchId}:${propertyId}`, ALERTS_NAMESPACE);
const matchNotificationId = (matchId: string) => nameBasedUuid(`match:${matchId}`, ALERTS_NAMESPACE);
const eventNotificationId = (integrationEventId: string, searchId: string) => nameBasedUuid(`event:${integrationEventId}:${searchId}`, ALERTS_NAMESPACE);

/** What the matcher needs of a saved search. */
export interface AlertingSearch {
  id: string;
  accountId: string;
  /** When the search was saved: older facts are not sent to it. */
  createdAtMs: number;
  notificationEnabled: boolean;
  endpointRecipient: string | null;
  eventEndpoint: string | null;
  subscribedEvents: readonly string[];
  hidePropertyContact: boolean;
  title: string | null;
  /** The e-mail address alerts go to (`notificationRecipient`); null: none. */
  notificationRecipient: string | null;
  /** Authorises the unsubscribe link of its e-mails. */
  unsubscribeToken: string;
}

export interface StoredMatch extends MatchFacts {
  accountId: string;
}

export interface AlertDecision {
  /** Matches to write: new ones, and existing ones whose `updatedAt` an event moved. */
  matches: StoredMatch[];
  /** How many of `matches` are new. */
  created: number;
  notifications: AlertNotification[];
}

export interface DecideAlertsInput {
  event: ListingsIntegrationEvent;
  /** When the event was published (the broker's timestamp). */
  publishedAtMs: number;
  /** The searches whose criteria the event's document meets. */
  searches: readonly AlertingSearch[];
  existingMatch: (matchId: string) => StoredMatch | null;
  now: string;
}

export function decideAlerts({ event, publishedAtMs, searches, existingMatch, now }: DecideAlertsInput): AlertDecision {
  const decision: AlertDecision = { matches: [], created: 0, notifications: [] };
  const document = event.document;
  for (const search of searches) {
    if (search.createdAtMs > publishedAtMs) continue;
    const matchId = matchIdOf(search.id, event.propertyId);
    let match = existingMatch(matchId);
    const isNew = match === null;
    if (match === null) {
      if (document.expired) continue;
      match = { id: matchId, searchId: search.id, accountId: search.accountId, propertyId: event.propertyId, createdAt: now, updatedAt: now };
      decision.matches.push(match);
      decision.created++;
    }
    if (!search.notificationEnabled) continue;
    const email = search.notificationRecipient === null ? null : { recipient: search.notificationRecipient, searchTitle: search.title, unsubscribeToken: search.unsubscribeToken };
    const notify = (id: string, kind: NotificationKind, endpoint: string | null, payload: unknown) =>
      decision.notifications.push({
        id,
        searchId: search.id,
        accountId: search.accountId,
        kind,
        endpoint,
        propertyId: event.propertyId,
        matchId,
        payload: JSON.stringify(payload),
        createdAt: now,
        email,
      });
    if (isNew) {
      notify(matchNotificationId(matchId), 'match', search.endpointRecipient, matchPayload(match, document, search.hidePropertyContact));
    }
    if (event.type === 'advert.event' && search.subscribedEvents.includes(event.kind)) {
      if (!isNew) {
        match = { ...match, updatedAt: now };
        decision.matches.push(match);
      }
      notify(
        eventNotificationId(event.id, search.id),
        event.kind,
        search.eventEndpoint,
        eventPayload(event.kind, adEventOf(event), matchPayload(match, document, search.hidePropertyContact)),
      );
    }
  }
  return decision;
}
