import { decide, replay } from './advert';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';
import { toIntegrationEvent, webhookEventId, webhookKindOf, WEBHOOK_EVENT_KINDS } from './webhook-kinds';
import { aSnapshot } from './snapshot.fixture';

function publishedState(): AdvertState {
  const state = replay(decide(aSnapshot(), null));
  if (!state) throw new Error('no state');
  return state;
}

function firstEvent(events: AdvertDomainEvent[]): AdvertDomainEvent {
  const [event] = events;
  if (!event) throw new Error('no event');
  return event;
}

describe('webhook kinds', () => {
  const state = publishedState();
  const later = '2026-03-05T08:00:00Z';

  const cases: [string, () => AdvertDomainEvent, string | null][] = [
    ['AdvertPublished', () => firstEvent(decide(aSnapshot(), null)), 'property.ad.create'],
    ['AdvertPriceChanged', () => firstEvent(decide(aSnapshot({ price: 270_000, seenAt: later }), state)), 'ad.update.price'],
    ['AdvertSurfaceChanged', () => firstEvent(decide(aSnapshot({ surface: 65, seenAt: later }), state)), 'ad.update.surface'],
    ['AdvertPicturesChanged', () => firstEvent(decide(aSnapshot({ pictures: [], seenAt: later }), state)), 'ad.update.pictures'],
    ['AdvertExpired', () => firstEvent(decide(aSnapshot({ expired: true, seenAt: later }), state)), 'ad.update.expired'],
    ['AdvertUpdated', () => firstEvent(decide(aSnapshot({ title: 'x', seenAt: later }), state)), 'property.ad.update'],
    [
      'AdvertRelisted',
      () => ({ type: ADVERT_EVENT_TYPES.relisted, data: { advertId: state.uuid, previousExpiredAt: null, at: state.lastCrawledAt } }),
      'property.ad.update',
    ],
    ['AdvertRecrawled', () => firstEvent(decide(aSnapshot({ seenAt: later }), state)), null],
    [
      'AdvertAssignedToProperty',
      () => ({ type: ADVERT_EVENT_TYPES.assignedToProperty, data: { advertId: state.uuid, propertyId: 'p', matchedAdvertId: null, at: later } }),
      null,
    ],
  ];

  it.each(cases)('given %s, when mapped, then the kind is %s', (_name, build, kind) => {
    const event = build();

    expect(webhookKindOf(event)).toBe(kind);
  });

  it('given one event of every domain type, when mapped, then exactly the six spec kinds are covered', () => {
    const types = new Set(cases.map(([, build]) => build().type));
    const kinds = new Set(cases.map(([, build]) => webhookKindOf(build())).filter((k) => k !== null));

    expect([...types].sort()).toEqual(Object.values(ADVERT_EVENT_TYPES).sort());
    expect([...kinds].sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort());
  });

  it('given a price drop at revision 3, when turned into an integration event, then the id is stable and adEvent has string variation', () => {
    // given
    const event = firstEvent(decide(aSnapshot({ price: 274_000, seenAt: later }), state));

    // when
    const integration = toIntegrationEvent(state.uuid, 3, event);
    const again = toIntegrationEvent(state.uuid, 3, event);

    // then
    expect(integration).toEqual(again);
    expect(integration).toEqual({
      id: `${state.uuid}:3:ad.update.price`,
      kind: 'ad.update.price',
      advertId: state.uuid,
      revision: 3,
      occurredAt: '2026-03-05T08:00:00+00:00',
      adEvent: {
        fieldName: 'price',
        fieldOldValue: '289000',
        fieldNewValue: '274000',
        percentVariation: '-5.19',
        createdAt: '2026-03-05T08:00:00+00:00',
      },
      changedFields: ['price'],
    });
  });

  it('given an update of untracked fields only, when turned into an integration event, then adEvent is null and the fields are listed', () => {
    const event = firstEvent(decide(aSnapshot({ title: 'Nouveau titre', description: 'x', seenAt: later }), state));

    expect(toIntegrationEvent(state.uuid, 1, event)).toMatchObject({
      kind: 'property.ad.update',
      adEvent: null,
      changedFields: ['title', 'description'],
    });
  });

  it('given a recrawl, when turned into an integration event, then there is none', () => {
    const event = firstEvent(decide(aSnapshot({ seenAt: later }), state));

    expect(toIntegrationEvent(state.uuid, 1, event)).toBeNull();
  });

  it('given the same change, when the id is built, then it is <advertId>:<revision>:<kind>', () => {
    expect(webhookEventId('a', 7, 'ad.update.expired')).toBe('a:7:ad.update.expired');
  });
});
