import {
  alertNotificationSchema,
  type AdvertWebhookEvent,
  type AdvertWebhookKind,
  type AlertNotification,
  type EventPayload,
  type ListingsIntegrationEvent,
  type MatchPayload,
  type PropertyCreatedEvent,
  type PropertyChangedEvent,
  type PropertyDocument,
  type WebhookPropertyDocument,
  propertyDocumentInParisTime,
} from '@immo/contracts';
import { aPropertyDocument, anAdvert, PROPERTY_UUID } from '@immo/property-criteria/testing';
import { decideAlerts, matchIdOf, type AlertingSearch, type DecideAlertsInput, type StoredMatch } from './alert-decisions';

const ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const OTHER_SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000002';
const ADVERT_ID = '1a2b3c4d-0000-4000-8000-000000000001';

const SAVED_AT = '2026-03-01T09:00:00.000Z';
const PUBLISHED_AT = '2026-03-05T07:59:58.000Z';
const NOW = '2026-03-05T08:00:00.000Z';
const EARLIER = '2026-03-02T10:00:00.000Z';
/** The same instants as payloads show them: Paris time (winter, +01:00), to the second. */
const PUBLISHED_IN_PARIS = '2026-03-05T08:59:58+01:00';
const NOW_IN_PARIS = '2026-03-05T09:00:00+01:00';
const EARLIER_IN_PARIS = '2026-03-02T11:00:00+01:00';

const MATCH_ENDPOINT = 'https://hooks.example.com/matches';
const EVENT_ENDPOINT = 'https://hooks.example.com/events';

const CONTACT = { agency: 'Agence du Rhône', email: 'contact@agence.example', fax: null, name: 'Mme Martin', phone: '+33 4 78 00 00 00', reference: 'REF-42' };

function aSearch(overrides: Partial<AlertingSearch> = {}): AlertingSearch {
  return {
    id: SEARCH_ID,
    accountId: ACCOUNT_ID,
    createdAtMs: Date.parse(SAVED_AT),
    notificationEnabled: true,
    endpointRecipient: MATCH_ENDPOINT,
    eventEndpoint: EVENT_ENDPOINT,
    subscribedEvents: ['ad.update.price', 'ad.update.expired'],
    hidePropertyContact: false,
    title: 'Lyon 3e',
    notificationRecipient: null,
    unsubscribeToken: 'token-of-the-search',
    ...overrides,
  };
}

function propertyCreated(document: PropertyDocument = aPropertyDocument(), id = 'property-created:1'): PropertyCreatedEvent {
  return { id, type: 'property.created', propertyId: document.uuid, occurredAt: PUBLISHED_AT, document };
}

function propertyChanged(document: PropertyDocument = aPropertyDocument(), changedFields = ['price']): PropertyChangedEvent {
  return { id: 'property-changed:2', type: 'property.changed', propertyId: document.uuid, occurredAt: PUBLISHED_AT, changedFields, document };
}

const PRICE_DROP = { fieldName: 'price', fieldOldValue: '300000', fieldNewValue: '289000', percentVariation: '-3.67', createdAt: PUBLISHED_AT };

function advertEvent(kind: AdvertWebhookKind, overrides: Partial<AdvertWebhookEvent> = {}): AdvertWebhookEvent {
  const document = overrides.document ?? aPropertyDocument();
  return {
    id: `${ADVERT_ID}:17:${kind}`,
    type: 'advert.event',
    kind,
    propertyId: document.uuid,
    advertId: ADVERT_ID,
    occurredAt: PUBLISHED_AT,
    adEvent: kind === 'ad.update.price' ? PRICE_DROP : null,
    changedFields: [],
    document,
    ...overrides,
  };
}

function anExistingMatch(overrides: Partial<StoredMatch> = {}): StoredMatch {
  const id = matchIdOf(SEARCH_ID, PROPERTY_UUID);
  return { id, searchId: SEARCH_ID, accountId: ACCOUNT_ID, propertyId: PROPERTY_UUID, createdAt: EARLIER, updatedAt: EARLIER, ...overrides };
}

/** Decides with one search and no existing match unless told otherwise. */
function decide(event: ListingsIntegrationEvent, overrides: Partial<DecideAlertsInput> = {}) {
  return decideAlerts({ event, publishedAtMs: Date.parse(PUBLISHED_AT), searches: [aSearch()], existingMatch: () => null, now: NOW, ...overrides });
}

const existing = (...matches: StoredMatch[]) => (id: string) => matches.find((match) => match.id === id) ?? null;

/** The document as the spec's webhooks show it: the city's point under `location`. */
function inWebhookForm(document: PropertyDocument): WebhookPropertyDocument {
  if (document.city === null) return { ...document, city: null };
  const { locations, ...city } = document.city;
  return { ...document, city: { ...city, location: locations } };
}

/** The Match payload the spec describes, for this match (its times as shown) and document (in Paris time). */
function expectedMatchPayload(match: Pick<StoredMatch, 'id' | 'searchId' | 'propertyId' | 'createdAt' | 'updatedAt'>, document: PropertyDocument): MatchPayload {
  return {
    '@context': '/contexts/Match',
    '@id': `/matches/${match.id}`,
    '@type': 'Match',
    property: `/documents/properties/${match.propertyId}`,
    search: `/searches/${match.searchId}`,
    createdAt: match.createdAt,
    updatedAt: match.updatedAt,
    propertyDocument: inWebhookForm(propertyDocumentInParisTime(document)),
  };
}

const payloadOf = <T>(notification: AlertNotification | undefined): T => JSON.parse((notification as AlertNotification).payload) as T;
const contactsOf = (document: Pick<PropertyDocument, 'adverts'>) => document.adverts.map((advert) => advert.contact);

describe('decideAlerts', () => {
  describe('given a search with a notificationRecipient', () => {
    it('then each notification carries the address, the title and the unsubscribe token its e-mail needs; without notifications, nothing', () => {
      const search = aSearch({ notificationRecipient: 'ana@example.org', endpointRecipient: null });
      const decision = decide(propertyCreated(), { searches: [search] });
      expect(decision.notifications.map((n) => [n.endpoint, n.email])).toEqual([[null, { recipient: 'ana@example.org', searchTitle: 'Lyon 3e', unsubscribeToken: 'token-of-the-search' }]]);
      expect(decide(propertyCreated()).notifications.map((n) => n.email)).toEqual([null]);
      expect(decide(propertyCreated(), { searches: [{ ...search, notificationEnabled: false }] }).notifications).toEqual([]);
    });
  });

  describe('given a search with notifications on and an endpointRecipient', () => {
    it('when a property.created event arrives, then one Match is born with the id derived from search and property', () => {
      const decision = decide(propertyCreated());

      expect(decision.created).toBe(1);
      expect(decision.matches).toEqual([
        { id: matchIdOf(SEARCH_ID, PROPERTY_UUID), searchId: SEARCH_ID, accountId: ACCOUNT_ID, propertyId: PROPERTY_UUID, createdAt: NOW, updatedAt: NOW },
      ]);
      expect(matchIdOf(SEARCH_ID, PROPERTY_UUID)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(matchIdOf(SEARCH_ID, PROPERTY_UUID)).toBe(matchIdOf(SEARCH_ID, PROPERTY_UUID));
      expect(matchIdOf(OTHER_SEARCH_ID, PROPERTY_UUID)).not.toBe(matchIdOf(SEARCH_ID, PROPERTY_UUID));
    });

    it('when a property.created event arrives, then one match notification carrying the spec’s Match payload goes to endpointRecipient', () => {
      const document = aPropertyDocument();
      const decision = decide(propertyCreated(document));

      const matchId = matchIdOf(SEARCH_ID, PROPERTY_UUID);
      expect(decision.notifications).toHaveLength(1);
      const [notification] = decision.notifications;
      expect(notification).toMatchObject({
        searchId: SEARCH_ID,
        accountId: ACCOUNT_ID,
        kind: 'match',
        endpoint: MATCH_ENDPOINT,
        propertyId: PROPERTY_UUID,
        matchId,
        createdAt: NOW,
      });
      expect(alertNotificationSchema.safeParse(notification).success).toBe(true);
      expect(payloadOf<MatchPayload>(notification)).toEqual(expectedMatchPayload({ id: matchId, searchId: SEARCH_ID, propertyId: PROPERTY_UUID, createdAt: NOW_IN_PARIS, updatedAt: NOW_IN_PARIS }, document));
    });

    it('when a property.changed event brings a property into the criteria, then its Match is born and notified too', () => {
      const decision = decide(propertyChanged());

      expect(decision.created).toBe(1);
      expect(decision.notifications.map((n) => [n.kind, n.endpoint])).toEqual([['match', MATCH_ENDPOINT]]);
    });

    it('when the search has no endpointRecipient, then the Match is notified to its live stream only (no endpoint)', () => {
      const decision = decide(propertyCreated(), { searches: [aSearch({ endpointRecipient: null })] });

      expect(decision.created).toBe(1);
      expect(decision.notifications).toEqual([expect.objectContaining({ kind: 'match', endpoint: null })]);
    });
  });

  describe('given a search with notifications off', () => {
    it('when a property.created event arrives, then the Match is still born but nothing is notified', () => {
      const decision = decide(propertyCreated(), { searches: [aSearch({ notificationEnabled: false })] });

      expect(decision.created).toBe(1);
      expect(decision.matches.map((m) => m.id)).toEqual([matchIdOf(SEARCH_ID, PROPERTY_UUID)]);
      expect(decision.notifications).toEqual([]);
    });

    it('when a subscribed advert event arrives on a new match, then the Match is born and no event is notified', () => {
      const decision = decide(advertEvent('ad.update.price'), { searches: [aSearch({ notificationEnabled: false })] });

      expect(decision.created).toBe(1);
      expect(decision.notifications).toEqual([]);
    });
  });

  describe('given a search that already has a Match for the property', () => {
    it('when the property.created event is delivered again, then no Match and no notification are decided', () => {
      const decision = decide(propertyCreated(), { existingMatch: existing(anExistingMatch()) });

      expect(decision).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when a property.changed event arrives, then nothing new is decided', () => {
      const decision = decide(propertyChanged(), { existingMatch: existing(anExistingMatch()) });

      expect(decision).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when an advert event of a subscribed kind arrives, then an Event payload with the match (updatedAt moved) goes to eventEndpoint', () => {
      const document = aPropertyDocument({ price: 289_000 });
      const event = advertEvent('ad.update.price', { document });
      const decision = decide(event, { existingMatch: existing(anExistingMatch()) });

      const matchId = matchIdOf(SEARCH_ID, PROPERTY_UUID);
      expect(decision.created).toBe(0);
      expect(decision.matches).toEqual([{ ...anExistingMatch(), updatedAt: NOW }]);
      expect(decision.notifications).toHaveLength(1);
      const [notification] = decision.notifications;
      expect(notification).toMatchObject({ kind: 'ad.update.price', endpoint: EVENT_ENDPOINT, searchId: SEARCH_ID, accountId: ACCOUNT_ID, matchId, propertyId: PROPERTY_UUID });
      expect(alertNotificationSchema.safeParse(notification).success).toBe(true);
      expect(payloadOf<EventPayload>(notification)).toEqual({
        event: 'ad.update.price',
        adEvent: { ...PRICE_DROP, createdAt: PUBLISHED_IN_PARIS },
        match: expectedMatchPayload({ id: matchId, searchId: SEARCH_ID, propertyId: PROPERTY_UUID, createdAt: EARLIER_IN_PARIS, updatedAt: NOW_IN_PARIS }, document),
      });
    });

    it('when an advert event of a kind it did not subscribe to arrives, then nothing is notified and the Match is left as it was', () => {
      const decision = decide(advertEvent('ad.update.pictures'), { existingMatch: existing(anExistingMatch()) });

      expect(decision).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when a subscribed advert event arrives but the search has no eventEndpoint, then it goes to the live stream only', () => {
      const decision = decide(advertEvent('ad.update.price'), { searches: [aSearch({ eventEndpoint: null })], existingMatch: existing(anExistingMatch()) });

      expect(decision.notifications).toEqual([expect.objectContaining({ kind: 'ad.update.price', endpoint: null })]);
    });
  });

  describe('given advert events that listings sent without an adEvent', () => {
    const subscribedToAll = aSearch({ subscribedEvents: ['property.ad.create', 'property.ad.update'] });

    it('when an advert is created, then adEvent names createdAt with the creation time, all in strings', () => {
      const decision = decide(advertEvent('property.ad.create'), { searches: [subscribedToAll], existingMatch: existing(anExistingMatch()) });

      const { adEvent } = payloadOf<EventPayload>(decision.notifications[0]);
      expect(adEvent).toEqual({ fieldName: 'createdAt', fieldOldValue: '', fieldNewValue: PUBLISHED_IN_PARIS, percentVariation: '0', createdAt: PUBLISHED_IN_PARIS });
      expect(Object.values(adEvent).every((value) => typeof value === 'string')).toBe(true);
    });

    it('when an advert’s texts change, then adEvent names the changed fields, all in strings', () => {
      const event = advertEvent('property.ad.update', { changedFields: ['title', 'description'] });
      const decision = decide(event, { searches: [subscribedToAll], existingMatch: existing(anExistingMatch()) });

      const { event: kind, adEvent } = payloadOf<EventPayload>(decision.notifications[0]);
      expect(kind).toBe('property.ad.update');
      expect(adEvent).toEqual({ fieldName: 'title,description', fieldOldValue: '', fieldNewValue: '', percentVariation: '0', createdAt: PUBLISHED_IN_PARIS });
    });
  });

  describe('given a subscribed advert event on a property the search has no Match for yet', () => {
    it('when decided, then one Match is born and both the match and the event are notified, to their own endpoints', () => {
      const decision = decide(advertEvent('ad.update.price'));

      const matchId = matchIdOf(SEARCH_ID, PROPERTY_UUID);
      expect(decision.created).toBe(1);
      expect(decision.matches).toEqual([expect.objectContaining({ id: matchId, createdAt: NOW, updatedAt: NOW })]);
      expect(decision.notifications.map((n) => [n.kind, n.endpoint, n.matchId])).toEqual([
        ['match', MATCH_ENDPOINT, matchId],
        ['ad.update.price', EVENT_ENDPOINT, matchId],
      ]);
      expect(new Set(decision.notifications.map((n) => n.id)).size).toBe(2);
    });
  });

  describe('given a search saved after the event was published (no back-fill)', () => {
    const savedLater = aSearch({ createdAtMs: Date.parse(PUBLISHED_AT) + 1 });

    it('when a property.created event arrives, then no Match and no notification are decided', () => {
      expect(decide(propertyCreated(), { searches: [savedLater] })).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when a subscribed advert event arrives for a property it has a Match for, then nothing is decided', () => {
      expect(decide(advertEvent('ad.update.price'), { searches: [savedLater], existingMatch: existing(anExistingMatch()) })).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when another search was saved before it, then that one alone is alerted', () => {
      const decision = decide(propertyCreated(), { searches: [savedLater, aSearch({ id: OTHER_SEARCH_ID })] });

      expect(decision.matches.map((m) => m.searchId)).toEqual([OTHER_SEARCH_ID]);
      expect(decision.notifications.map((n) => n.searchId)).toEqual([OTHER_SEARCH_ID]);
    });

    it('when the search was saved at the very millisecond the event was published, then it is alerted', () => {
      const decision = decide(propertyCreated(), { searches: [aSearch({ createdAtMs: Date.parse(PUBLISHED_AT) })] });

      expect(decision.created).toBe(1);
      expect(decision.notifications).toHaveLength(1);
    });
  });

  describe('given an expired property', () => {
    const expired = aPropertyDocument({ expired: true, expiredAt: PUBLISHED_AT });

    it('when it changes and the search has no Match for it, then no Match is born and nothing is notified', () => {
      expect(decide(propertyChanged(expired, ['expired']))).toEqual({ matches: [], created: 0, notifications: [] });
    });

    it('when its ad.update.expired event arrives and the search already has a Match, then the subscribed event still flows', () => {
      const decision = decide(advertEvent('ad.update.expired', { document: expired }), { existingMatch: existing(anExistingMatch()) });

      expect(decision.created).toBe(0);
      expect(decision.notifications.map((n) => [n.kind, n.endpoint])).toEqual([['ad.update.expired', EVENT_ENDPOINT]]);
      expect(payloadOf<EventPayload>(decision.notifications[0]).match.propertyDocument.expired).toBe(true);
    });
  });

  it('given a new property, then the Match payload carries the city\'s point under `location`, as the spec\'s webhooks do', () => {
    const decision = decide(propertyCreated(aPropertyDocument()), { searches: [aSearch()] });
    const city = payloadOf<MatchPayload>(decision.notifications[0]).propertyDocument.city as unknown as Record<string, unknown>;
    expect(city['location']).toEqual(aPropertyDocument().city?.locations);
    expect(city).not.toHaveProperty('locations');
  });

  describe('given adverts with a contact', () => {
    const document = aPropertyDocument({ adverts: [anAdvert({ contact: CONTACT }), anAdvert({ uuid: '1a2b3c4d-0000-4000-8000-000000000002', contact: { ...CONTACT, name: 'M. Durand' } })] });

    it('when the search hides property contacts, then no advert in the Match and Event payloads carries one', () => {
      const hiding = aSearch({ hidePropertyContact: true });
      const created = decide(propertyCreated(document), { searches: [hiding] });
      const priced = decide(advertEvent('ad.update.price', { document }), { searches: [hiding], existingMatch: existing(anExistingMatch()) });

      const matchDocument = payloadOf<MatchPayload>(created.notifications[0]).propertyDocument;
      const eventDocument = payloadOf<EventPayload>(priced.notifications[0]).match.propertyDocument;
      expect(contactsOf(matchDocument)).toEqual([null, null]);
      expect(contactsOf(eventDocument)).toEqual([null, null]);
      // Everything else about the adverts is still sent.
      const shown = propertyDocumentInParisTime(document);
      expect(matchDocument).toEqual(inWebhookForm({ ...shown, adverts: shown.adverts.map((advert) => ({ ...advert, contact: null })) }));
      // The event's own document is left untouched for the other searches.
      expect(contactsOf(document)).toEqual([CONTACT, { ...CONTACT, name: 'M. Durand' }]);
    });

    it('when one search hides contacts and another does not, then only the first one’s payload drops them', () => {
      const decision = decide(propertyCreated(document), { searches: [aSearch({ hidePropertyContact: true }), aSearch({ id: OTHER_SEARCH_ID })] });

      const bySearch = new Map(decision.notifications.map((n) => [n.searchId, contactsOf(payloadOf<MatchPayload>(n).propertyDocument)]));
      expect(bySearch.get(SEARCH_ID)).toEqual([null, null]);
      expect(bySearch.get(OTHER_SEARCH_ID)).toEqual([CONTACT, { ...CONTACT, name: 'M. Durand' }]);
    });
  });

  describe('given the same input decided twice (a redelivered integration event)', () => {
    it('when decided again, then the Matches and notifications are identical, ids included', () => {
      const searches = [aSearch(), aSearch({ id: OTHER_SEARCH_ID, hidePropertyContact: true })];
      const input = { searches, existingMatch: existing(anExistingMatch()) };
      const event = advertEvent('ad.update.price');

      const first = decide(event, input);
      const second = decide(structuredClone(event), input);

      expect(second).toEqual(first);
      expect(first.notifications).toHaveLength(3);
      expect(new Set(first.notifications.map((n) => n.id)).size).toBe(3);
    });

    it('when another event of the same kind arrives on the same match, then its notification gets another id', () => {
      const input = { existingMatch: existing(anExistingMatch()) };
      const first = decide(advertEvent('ad.update.price'), input);
      const next = decide(advertEvent('ad.update.price', { id: `${ADVERT_ID}:18:ad.update.price` }), input);

      expect(next.notifications[0]?.id).not.toBe(first.notifications[0]?.id);
    });

    it('when a property.created event is redelivered under another event id before its Match is stored, then the match notification keeps its id', () => {
      const first = decide(propertyCreated(aPropertyDocument(), 'property-created:1'));
      const again = decide(propertyCreated(aPropertyDocument(), 'property-created:1-republished'));

      expect(again.notifications.map((n) => n.id)).toEqual(first.notifications.map((n) => n.id));
    });
  });

  describe('given no search', () => {
    it('when an event arrives, then nothing is decided', () => {
      expect(decide(propertyCreated(), { searches: [] })).toEqual({ matches: [], created: 0, notifications: [] });
    });
  });
});
