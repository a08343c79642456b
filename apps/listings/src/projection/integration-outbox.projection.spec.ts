import { listingsIntegrationEventSchema, type AdvertSnapshot, type ListingsIntegrationEvent, type PropertyDocument } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import type { RecordedEvent } from '@immo/event-store';
import {
  ADVERT_EVENT_TYPES,
  advertStreamName,
  buildPropertyDocument,
  decide,
  decideAssignment,
  evolve,
  PropertyMatcher,
  propertyIdFor,
  replay,
  webhookEventId,
  type AdvertDomainEvent,
  type AdvertState,
} from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import type { AdvertChange } from './advert-states.projection';
import { changedFields } from '../domain';
import { integrationEventOf, IntegrationOutboxProjection } from './integration-outbox.projection';
import type { PropertyChange } from './property-documents.projection';
import { OUTBOX_COLLECTION, outboxId, type OutboxRecord } from './read-models';
import type { UnitOfWork } from './unit-of-work';

// ---------------------------------------------------------------------------------------------
// builders: adverts folded with the real decider, changes shaped as the advert-states projection
// hands them downstream
// ---------------------------------------------------------------------------------------------

function published(overrides: Partial<AdvertSnapshot> = {}): AdvertState {
  const state = replay(decide(aSnapshot(overrides), null));
  if (state === null) throw new Error('publication produced no state');
  return state;
}

function assignment(state: AdvertState, propertyId: string, matchedAdvertId: string | null = null): AdvertDomainEvent {
  return { type: ADVERT_EVENT_TYPES.assignedToProperty, data: { advertId: state.uuid, propertyId, matchedAdvertId, at: state.lastCrawledAt } };
}

function recorded(state: AdvertState, domainEvent: AdvertDomainEvent, revision: number, position: number): RecordedEvent {
  return {
    id: `event-${position}`,
    type: domainEvent.type,
    data: domainEvent.data,
    metadata: { advertId: state.uuid },
    streamName: advertStreamName(state.uuid),
    revision,
    position,
    createdAt: new Date('2026-03-05T08:00:00Z'),
  };
}

/** Applies one domain event to `previous`, as stored event `revision` at global `position`. */
function changeOf(previous: AdvertState, domainEvent: AdvertDomainEvent, position: number): AdvertChange {
  const next = evolve(previous, domainEvent);
  return { event: recorded(previous, domainEvent, previous.version, position), advertId: previous.uuid, domainEvent, previous, next };
}

/** The change a snapshot causes when it yields exactly one domain event. */
function crawl(previous: AdvertState, overrides: Partial<AdvertSnapshot>, position: number): AdvertChange {
  const events = decide(aSnapshot(overrides), previous);
  const [only] = events;
  if (only === undefined || events.length !== 1) throw new Error(`expected one event, got ${events.map((e) => e.type).join(', ')}`);
  return changeOf(previous, only, position);
}

function documentOf(propertyId: string, adverts: AdvertState[]): PropertyDocument {
  return buildPropertyDocument({ propertyId, adverts, city: null, stations: [] });
}

/** The property change of an advert joining a property of `members`. */
function joining(propertyId: string, members: AdvertState[], change: AdvertChange): PropertyChange {
  return { propertyId, before: documentOf(propertyId, members), after: documentOf(propertyId, [...members, change.next]), crawlOnly: false };
}

/** An event must satisfy the contract consumers validate against. */
function expectValid(event: ListingsIntegrationEvent | null): void {
  expect(event).not.toBeNull();
  expect(listingsIntegrationEventSchema.parse(event)).toEqual(event);
}

const agency = published();
const PROPERTY_ID = propertyIdFor(agency.uuid);
const assignedAgency = evolve(agency, assignment(agency, PROPERTY_ID));
const privateSeller = published({
  site: 'synthetic-classifieds-b',
  siteCategory: 'classifieds',
  reference: 'B-77',
  url: 'https://synthetic-classifieds-b.example/ad/77',
  publisher: { name: 'Particulier', category: 'individual', type: 0 },
  seenAt: '2026-03-02T09:00:00Z',
});

describe('changedFields', () => {
  const before = documentOf(PROPERTY_ID, [assignedAgency]);

  it('given the same document, when compared, then nothing changed', () => {
    expect(changedFields(before, documentOf(PROPERTY_ID, [assignedAgency]))).toEqual([]);
  });

  it('given a price drop, when compared, then price and price per metre changed', () => {
    const after = documentOf(PROPERTY_ID, [crawl(assignedAgency, { price: 275_000, seenAt: '2026-03-05T08:00:00Z' }, 10).next]);

    expect(changedFields(before, after).sort()).toEqual(['price', 'pricePerMeter']);
  });

  it('given only a recrawl, when compared, then the crawl dates are not reported as changes', () => {
    const after = documentOf(PROPERTY_ID, [crawl(assignedAgency, { seenAt: '2026-03-05T08:00:00Z' }, 10).next]);
    expect(after.lastCrawledAt).not.toBe(before.lastCrawledAt);

    expect(changedFields(before, after)).toEqual([]);
  });

  it('given a second advert joining, when compared, then adverts changed (and the fields it brings)', () => {
    const after = documentOf(PROPERTY_ID, [assignedAgency, evolve(privateSeller, assignment(privateSeller, PROPERTY_ID, agency.uuid))]);

    const fields = changedFields(before, after);

    expect(fields).toContain('adverts');
    expect(fields).toContain('publisherTypes');
  });

  it('given a nested watched field that changed, when compared, then it is reported', () => {
    const after: PropertyDocument = { ...before, locations: { lat: 45.7, lon: 4.8 } };

    expect(changedFields(before, after)).toEqual(['locations']);
  });

  it('given a watched field going to null, when compared, then it is reported', () => {
    const after: PropertyDocument = { ...before, floor: null };

    expect(changedFields(before, after)).toEqual(['floor']);
  });
});

describe('integrationEventOf', () => {
  describe('given an advert assigned to the property it founds', () => {
    const change = changeOf(agency, assignment(agency, PROPERTY_ID), 42);
    const property: PropertyChange = { propertyId: PROPERTY_ID, before: null, after: documentOf(PROPERTY_ID, [change.next]), crawlOnly: false };
    const event = integrationEventOf(change, property);

    it('then the advert creation alone announces it, under the id of revision 0, at the advert creation, with the new document', () => {
      expect(event).toEqual({
        id: webhookEventId(agency.uuid, 0, 'property.ad.create'),
        type: 'advert.event',
        kind: 'property.ad.create',
        propertyId: PROPERTY_ID,
        advertId: agency.uuid,
        occurredAt: agency.createdAt,
        adEvent: null,
        changedFields: [],
        document: property.after,
      });
    });

    it('then the event satisfies the integration contract', () => {
      expectValid(event);
    });

    it('when the same change is replayed, then the same event with the same id comes out', () => {
      expect(integrationEventOf(change, property)).toEqual(event);
    });
  });

  describe('given an advert published earlier and only assigned at a later crawl', () => {
    it('then its creation is announced as occurring when it was created, not when it was assigned', () => {
      const recrawledFirst = crawl(agency, { seenAt: '2026-03-09T08:00:00Z' }, 44).next;
      const [assigned] = decideAssignment(recrawledFirst, new PropertyMatcher());
      if (assigned === undefined) throw new Error('expected an assignment');
      const change = changeOf(recrawledFirst, assigned, 45);
      const document = documentOf(PROPERTY_ID, [change.next]);

      const created = integrationEventOf(change, { propertyId: PROPERTY_ID, before: document, after: document, crawlOnly: false });

      expect(assigned.data.at).not.toBe(agency.createdAt);
      expect(created).toEqual(expect.objectContaining({ kind: 'property.ad.create', occurredAt: agency.createdAt }));
      expectValid(created);
    });
  });

  describe('given a second advert joining an existing property', () => {
    it('then the advert creation announces it, with the document holding both adverts', () => {
      const change = changeOf(privateSeller, assignment(privateSeller, PROPERTY_ID, agency.uuid), 43);
      const property = joining(PROPERTY_ID, [assignedAgency], change);

      const event = integrationEventOf(change, property);

      expect(event).toMatchObject({
        id: webhookEventId(privateSeller.uuid, 0, 'property.ad.create'),
        type: 'advert.event',
        kind: 'property.ad.create',
        advertId: privateSeller.uuid,
        propertyId: PROPERTY_ID,
        document: property.after,
      });
      expectValid(event);
    });
  });

  describe('given an advert moved from one property to another', () => {
    it('then its creation is not announced a second time', () => {
      const otherProperty = propertyIdFor(privateSeller.uuid);
      const change = changeOf(assignedAgency, assignment(assignedAgency, otherProperty, privateSeller.uuid), 50);

      expect(integrationEventOf(change, null)).toBeNull();
    });

    it('when it founds the property it moves to, then the property creation announces it', () => {
      const otherProperty = propertyIdFor(privateSeller.uuid);
      const change = changeOf(assignedAgency, assignment(assignedAgency, otherProperty), 51);
      const property: PropertyChange = { propertyId: otherProperty, before: null, after: documentOf(otherProperty, [change.next]), crawlOnly: false };

      const event = integrationEventOf(change, property);

      expect(event).toEqual({ id: `property-created:${otherProperty}`, type: 'property.created', propertyId: otherProperty, occurredAt: change.domainEvent.data.at, document: property.after });
      expectValid(event);
    });

    it('when it joins an existing property, then the property change announces it, with the fields that moved', () => {
      const otherProperty = propertyIdFor(privateSeller.uuid);
      const seller = evolve(privateSeller, assignment(privateSeller, otherProperty));
      const change = changeOf(assignedAgency, assignment(assignedAgency, otherProperty, privateSeller.uuid), 52);
      const property = joining(otherProperty, [seller], change);

      const event = integrationEventOf(change, property);

      expect(event).toMatchObject({ id: `property-changed:${otherProperty}:52`, type: 'property.changed', propertyId: otherProperty, document: property.after });
      expect(event?.type === 'property.changed' && event.changedFields).toEqual(expect.arrayContaining(['adverts', 'publisherTypes']));
      expectValid(event);
    });
  });

  describe('given a price drop of a grouped advert', () => {
    const change = crawl(assignedAgency, { price: 275_000, seenAt: '2026-03-05T08:00:00Z' }, 60);
    const property: PropertyChange = {
      propertyId: PROPERTY_ID,
      before: documentOf(PROPERTY_ID, [assignedAgency]),
      after: documentOf(PROPERTY_ID, [change.next]),
      crawlOnly: false,
    };
    const event = integrationEventOf(change, property);

    it('then it alone announces the change (no separate property change): ad.update.price, under the revision of the stored event, with the price history entry', () => {
      expect(change.event.revision).toBe(assignedAgency.version);
      expect(event).toEqual({
        id: webhookEventId(agency.uuid, change.event.revision, 'ad.update.price'),
        type: 'advert.event',
        kind: 'ad.update.price',
        propertyId: PROPERTY_ID,
        advertId: agency.uuid,
        occurredAt: '2026-03-05T08:00:00+00:00',
        adEvent: {
          fieldName: 'price',
          fieldOldValue: '289000',
          fieldNewValue: '275000',
          percentVariation: '-4.84',
          createdAt: '2026-03-05T08:00:00+00:00',
        },
        changedFields: ['price'],
        document: property.after,
      });
    });

    it('then the event is valid', () => {
      expectValid(event);
    });

    it('when the property document was already past this change (same document before and after), then only the advert event comes out, with that document', () => {
      const current = property.after;
      const again = integrationEventOf(change, { propertyId: PROPERTY_ID, before: current, after: current, crawlOnly: false });
      expect(again?.type).toBe('advert.event');
      expect(again?.document).toBe(current);
    });

    it('when no document of the property can be had, then nothing comes out (a matcher could not test it)', () => {
      expect(integrationEventOf(change, null)).toBeNull();
    });
  });

  describe('given a change of text only', () => {
    it('then the property is not announced changed (no watched field moved) and the advert update names the field', () => {
      const change = crawl(assignedAgency, { contact: { agency: 'Agence Exemple', phone: '01 99 00 00 00' }, seenAt: '2026-03-05T08:00:00Z' }, 70);
      const property: PropertyChange = {
        propertyId: PROPERTY_ID,
        before: documentOf(PROPERTY_ID, [assignedAgency]),
        after: documentOf(PROPERTY_ID, [change.next]),
        crawlOnly: false,
      };

      const event = integrationEventOf(change, property);

      expect(event).toMatchObject({ type: 'advert.event', kind: 'property.ad.update', adEvent: null, changedFields: ['contact'] });
      expectValid(event);
    });
  });

  describe('given a recrawl that changed nothing', () => {
    it('then nothing is announced', () => {
      const change = crawl(assignedAgency, { seenAt: '2026-03-05T08:00:00Z' }, 80);
      expect(change.domainEvent.type).toBe(ADVERT_EVENT_TYPES.recrawled);
      const property: PropertyChange = {
        propertyId: PROPERTY_ID,
        before: documentOf(PROPERTY_ID, [assignedAgency]),
        after: documentOf(PROPERTY_ID, [change.next]),
        crawlOnly: false,
      };

      expect(integrationEventOf(change, property)).toBeNull();
    });
  });

  describe('given an advert that belongs to no property yet', () => {
    it('then nothing is announced, even with a property change at hand', () => {
      const change = crawl(agency, { price: 275_000, seenAt: '2026-03-05T08:00:00Z' }, 90);
      const property: PropertyChange = { propertyId: PROPERTY_ID, before: null, after: documentOf(PROPERTY_ID, [assignedAgency]), crawlOnly: false };

      expect(integrationEventOf(change, property)).toBeNull();
    });
  });
});

describe('IntegrationOutboxProjection', () => {
  /** Records what the projection puts into the unit of work (the only call it makes). */
  function recordingUnitOfWork(): { uow: UnitOfWork; puts: { collection: string; doc: OutboxRecord }[] } {
    const puts: { collection: string; doc: OutboxRecord }[] = [];
    const uow = { put: (collection: string, doc: OutboxRecord) => puts.push({ collection, doc }) } as unknown as UnitOfWork;
    return { uow, puts };
  }

  it('given a change with an event, when applied, then it is put in the outbox under its subject, at the change position, as JSON carrying that position', () => {
    const store = new EmbeddedDocumentStore();
    const projection = new IntegrationOutboxProjection(store);
    const { uow, puts } = recordingUnitOfWork();
    const change = changeOf(agency, assignment(agency, PROPERTY_ID), 42);
    const property: PropertyChange = { propertyId: PROPERTY_ID, before: null, after: documentOf(PROPERTY_ID, [change.next]), crawlOnly: false };
    const event = integrationEventOf(change, property);

    const count = projection.apply(change, property, uow);

    expect(count).toBe(1);
    const withoutPayload = ({ collection, doc: { payload: _payload, ...doc } }: { collection: string; doc: OutboxRecord }) => ({ collection, doc });
    expect(puts.map(withoutPayload)).toEqual([
      { collection: OUTBOX_COLLECTION.name, doc: { _id: outboxId(42, 0), revision: 42, subject: 'listings.events.advert.property.ad.create.v1', eventId: event?.id } },
    ]);
    expect(puts.map(({ doc }) => JSON.parse(doc.payload) as unknown)).toEqual([JSON.parse(JSON.stringify({ ...event, position: 42 })) as unknown]);
    for (const { doc } of puts) expect(listingsIntegrationEventSchema.safeParse(JSON.parse(doc.payload)).success).toBe(true);
  });

  it('given a change that announces nothing, when applied, then the outbox gets nothing', () => {
    const projection = new IntegrationOutboxProjection(new EmbeddedDocumentStore());
    const { uow, puts } = recordingUnitOfWork();

    const count = projection.apply(crawl(assignedAgency, { seenAt: '2026-03-05T08:00:00Z' }, 80), null, uow);

    expect(count).toBe(0);
    expect(puts).toEqual([]);
  });
});
