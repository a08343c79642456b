import { validateSnapshot } from '@immo/contracts';
import {
  advertId,
  advertIdOf,
  advertStreamName,
  decide,
  decideExpiry,
  evolve,
  replay,
  toEventData,
} from './advert';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';
import { fromRecordedEvent, upcast, UnknownAdvertEventError } from './advert.upcast';
import { aSnapshot } from './snapshot.fixture';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function published(overrides: Parameters<typeof aSnapshot>[0] = {}): AdvertState {
  const state = replay(decide(aSnapshot(overrides), null));
  if (state === null) throw new Error('publication produced no state');
  return state;
}

function apply(state: AdvertState, events: AdvertDomainEvent[]): AdvertState {
  return events.reduce<AdvertState>((s, e) => evolve(s, e), state);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('advertId', () => {
  it('given the same site and reference, when the URL differs, then the id is the same v5 uuid', () => {
    const a = advertIdOf(aSnapshot({ url: 'https://synthetic-portal-a.example/a' }));
    const b = advertIdOf(aSnapshot({ url: 'https://synthetic-portal-a.example/b' }));

    expect(a).toBe(b);
    expect(a).toMatch(UUID_V5);
    expect(a).toBe(advertId('synthetic-portal-a', 'SPA-1'));
  });

  it('given the same reference, when the site differs, then the ids differ', () => {
    expect(advertId('site-a', 'R1')).not.toBe(advertId('site-b', 'R1'));
  });

  it('given no reference, when identifying, then the URL without fragment is the identity', () => {
    const withFragment = advertIdOf(aSnapshot({ reference: null, url: 'https://s.example/ad/1#photos' }));
    const plain = advertIdOf(aSnapshot({ reference: undefined, url: 'https://s.example/ad/1' }));

    expect(withFragment).toBe(plain);
    expect(plain).not.toBe(advertIdOf(aSnapshot()));
  });

  it('given an id, when naming its stream, then it is prefixed by advert-', () => {
    expect(advertStreamName('x')).toBe('advert-x');
  });
});

describe('decide and evolve', () => {
  describe('given no state', () => {
    it('when a snapshot arrives, then AdvertPublished carries normalised fields and the state starts at seenAt', () => {
      // given
      const snapshot = aSnapshot({ seenAt: '2026-03-01T12:00:00.789+02:00' });

      // when
      const events = decide(snapshot, null);
      const state = replay(events);

      // then
      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.published]);
      expect(state).toMatchObject({
        uuid: advertIdOf(snapshot),
        site: 'synthetic-portal-a',
        reference: 'SPA-1',
        version: 1,
        price: 289_000,
        landSurface: null,
        contact: { agency: 'Agence Exemple (synthetic)', email: null, phone: '01 99 00 12 34' },
        createdAt: '2026-03-01T10:00:00+00:00',
        updatedAt: '2026-03-01T10:00:00+00:00',
        lastCrawledAt: '2026-03-01T10:00:00+00:00',
        expired: false,
        events: [],
        propertyId: null,
      });
    });

    it('when the first snapshot is already withdrawn, then it is published and expired at once', () => {
      const events = decide(aSnapshot({ expired: true }), null);

      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.published, ADVERT_EVENT_TYPES.expired]);
      expect(replay(events)).toMatchObject({ expired: true, expiredAt: '2026-03-01T10:00:00+00:00' });
    });
  });

  describe('given a published advert', () => {
    it('when the identical snapshot is redelivered, then nothing is emitted', () => {
      expect(decide(aSnapshot(), published())).toEqual([]);
    });

    it('when the same content is seen at the same second with other milliseconds, then nothing is emitted', () => {
      expect(decide(aSnapshot({ seenAt: '2026-03-01T10:00:00.500Z' }), published())).toEqual([]);
    });

    it('when only seenAt is newer, then AdvertRecrawled moves lastCrawledAt but not updatedAt', () => {
      // given
      const state = published();

      // when
      const events = decide(aSnapshot({ seenAt: '2026-03-02T10:00:00Z' }), state);
      const next = apply(state, events);

      // then
      expect(events).toEqual([
        { type: ADVERT_EVENT_TYPES.recrawled, data: { advertId: state.uuid, at: '2026-03-02T10:00:00+00:00' } },
      ]);
      expect(next.lastCrawledAt).toBe('2026-03-02T10:00:00+00:00');
      expect(next.updatedAt).toBe('2026-03-01T10:00:00+00:00');
      expect(next.events).toEqual([]);
    });

    it('when the price drops, then AdvertPriceChanged carries old, new, a negative variation and the time', () => {
      // given
      const state = published();

      // when
      const events = decide(aSnapshot({ price: 274_000, seenAt: '2026-03-05T08:00:00Z' }), state);
      const next = apply(state, events);

      // then
      expect(events).toEqual([
        {
          type: ADVERT_EVENT_TYPES.priceChanged,
          data: {
            advertId: state.uuid,
            oldPrice: 289_000,
            newPrice: 274_000,
            percentVariation: -5.19,
            at: '2026-03-05T08:00:00+00:00',
          },
        },
      ]);
      expect(next).toMatchObject({ price: 274_000, updatedAt: '2026-03-05T08:00:00+00:00', lastCrawledAt: '2026-03-05T08:00:00+00:00' });
      expect(next.events).toEqual([
        {
          fieldName: 'price',
          fieldOldValue: '289000',
          fieldNewValue: '274000',
          percentVariation: -5.19,
          createdAt: '2026-03-05T08:00:00+00:00',
        },
      ]);
    });

    it('when the surface is corrected, then AdvertSurfaceChanged has the variation', () => {
      const events = decide(aSnapshot({ surface: 66, seenAt: '2026-03-05T08:00:00Z' }), published());

      expect(events).toMatchObject([
        { type: ADVERT_EVENT_TYPES.surfaceChanged, data: { oldSurface: 64, newSurface: 66, percentVariation: 3.13 } },
      ]);
    });

    it('when the surface disappears, then the change has no variation and is recorded with an empty value', () => {
      const state = published();
      const events = decide(aSnapshot({ surface: null, seenAt: '2026-03-05T08:00:00Z' }), state);

      expect(events).toMatchObject([{ type: ADVERT_EVENT_TYPES.surfaceChanged, data: { newSurface: null, percentVariation: null } }]);
      expect(apply(state, events).events).toMatchObject([{ fieldName: 'surface', fieldOldValue: '64', fieldNewValue: '', percentVariation: 0 }]);
    });

    it('when pictures are added, then AdvertPicturesChanged carries both lists', () => {
      // given
      const state = published();
      const pictures = [...state.pictures, 'https://img.synthetic-portal-a.example/SPA-1/2.jpg'];

      // when
      const events = decide(aSnapshot({ pictures, seenAt: '2026-03-05T08:00:00Z' }), state);
      const next = apply(state, events);

      // then
      expect(events).toMatchObject([{ type: ADVERT_EVENT_TYPES.picturesChanged, data: { newPictures: pictures } }]);
      expect(next.pictures).toEqual(pictures);
      expect(next.events).toMatchObject([{ fieldName: 'pictures', fieldOldValue: '1', fieldNewValue: '2' }]);
    });

    it('when other fields change, then one AdvertUpdated carries only the changed fields', () => {
      // given
      const state = published();

      // when
      const events = decide(
        aSnapshot({
          title: 'Bel appartement 3 pièces',
          room: 4,
          energy: { category: 'C', value: 150 },
          contact: { agency: 'Agence Exemple (synthetic)', phone: '01 99 00 12 35' },
          seenAt: '2026-03-05T08:00:00Z',
        }),
        state,
      );
      const next = apply(state, events);

      // then
      expect(events).toEqual([
        {
          type: ADVERT_EVENT_TYPES.updated,
          data: {
            advertId: state.uuid,
            changes: {
              title: 'Bel appartement 3 pièces',
              room: 4,
              energy: { category: 'C', value: 150 },
              contact: { agency: 'Agence Exemple (synthetic)', email: null, fax: null, name: null, phone: '01 99 00 12 35', reference: null },
            },
            previous: {
              title: 'Appartement 3 pièces 64 m²',
              room: 3,
              energy: { category: 'D', value: 212 },
              contact: state.contact,
            },
            at: '2026-03-05T08:00:00+00:00',
          },
        },
      ]);
      expect(next).toMatchObject({ title: 'Bel appartement 3 pièces', room: 4, energy: { category: 'C' } });
      // Only scalar fields get a history entry; title, energy and contact do not.
      expect(next.events).toEqual([
        { fieldName: 'room', fieldOldValue: '3', fieldNewValue: '4', percentVariation: 33.33, createdAt: '2026-03-05T08:00:00+00:00' },
      ]);
    });

    it('when price and title change together, then both are emitted and no recrawl is added', () => {
      const events = decide(aSnapshot({ price: 280_000, title: 'x', seenAt: '2026-03-05T08:00:00Z' }), published());

      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.priceChanged, ADVERT_EVENT_TYPES.updated]);
    });

    it('when a snapshot older than lastCrawledAt arrives, then nothing is emitted and fields are not rolled back', () => {
      // given: the price dropped on the 5th
      const initial = published();
      const state = apply(initial, decide(aSnapshot({ price: 270_000, seenAt: '2026-03-05T08:00:00Z' }), initial));

      // when: a crawl from the 3rd, still at the old price, arrives late
      const events = decide(aSnapshot({ price: 289_000, seenAt: '2026-03-03T08:00:00Z' }), state);

      // then
      expect(events).toEqual([]);
    });

    it('when a change is seen in the same second as the last crawl, then it is applied', () => {
      const events = decide(aSnapshot({ price: 280_000 }), published());

      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.priceChanged]);
    });
  });

  describe('given expiry', () => {
    it('when the crawler reports the advert withdrawn, then AdvertExpired(withdrawn) at seenAt', () => {
      const state = published();
      const events = decide(aSnapshot({ expired: true, seenAt: '2026-04-01T00:00:00Z' }), state);
      const next = apply(state, events);

      expect(events).toEqual([
        {
          type: ADVERT_EVENT_TYPES.expired,
          data: { advertId: state.uuid, expiredAt: '2026-04-01T00:00:00+00:00', reason: 'withdrawn', at: '2026-04-01T00:00:00+00:00', crawled: true },
        },
      ]);
      expect(next).toMatchObject({ expired: true, expiredAt: '2026-04-01T00:00:00+00:00' });
      expect(next.events).toMatchObject([{ fieldName: 'expired', fieldOldValue: 'false', fieldNewValue: 'true' }]);
    });

    it('when the announced expiredAt is in the future, then it is only recorded as a field', () => {
      const events = decide(aSnapshot({ expiredAt: '2026-05-01T00:00:00Z', seenAt: '2026-03-02T00:00:00Z' }), published());

      expect(events).toMatchObject([
        { type: ADVERT_EVENT_TYPES.updated, data: { changes: { expiresAt: '2026-05-01T00:00:00+00:00' }, previous: { expiresAt: null } } },
      ]);
    });

    it('when a crawl happens after the announced expiredAt, then AdvertExpired(expiry-date-reached) at that date', () => {
      const state = published({ expiredAt: '2026-03-10T00:00:00Z' });
      const events = decide(aSnapshot({ expiredAt: '2026-03-10T00:00:00Z', seenAt: '2026-03-12T00:00:00Z' }), state);

      expect(events).toMatchObject([
        { type: ADVERT_EVENT_TYPES.expired, data: { expiredAt: '2026-03-10T00:00:00+00:00', reason: 'expiry-date-reached', crawled: true } },
      ]);
    });

    it('when the clock passes the announced expiry, then decideExpiry expires it without moving lastCrawledAt', () => {
      // given
      const state = published({ expiredAt: '2026-03-10T00:00:00Z' });

      // when
      const before = decideExpiry(state, new Date('2026-03-09T23:59:59Z'));
      const events = decideExpiry(state, new Date('2026-03-10T06:00:00Z'));
      const next = apply(state, events);

      // then
      expect(before).toEqual([]);
      expect(events).toMatchObject([{ type: ADVERT_EVENT_TYPES.expired, data: { reason: 'expiry-date-reached', crawled: false } }]);
      expect(next).toMatchObject({ expired: true, expiredAt: '2026-03-10T00:00:00+00:00', lastCrawledAt: state.lastCrawledAt });
      expect(decideExpiry(next, new Date('2026-03-11T00:00:00Z'))).toEqual([]);
    });

    it('when an expired advert is seen live again, then AdvertRelisted', () => {
      const initial = published();
      const expired = apply(initial, decide(aSnapshot({ expired: true, seenAt: '2026-04-01T00:00:00Z' }), initial));

      const events = decide(aSnapshot({ expired: false, seenAt: '2026-05-01T00:00:00Z' }), expired);
      const next = apply(expired, events);

      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.relisted]);
      expect(next).toMatchObject({ expired: false, expiredAt: null });
    });

    it('when a crawl made before a clock-detected expiry arrives late, then it does not relist the advert', () => {
      // given: announced expiry on the 10th, detected by the clock; last crawl was on the 1st
      const initial = published({ expiredAt: '2026-03-10T00:00:00Z' });
      const expired = apply(initial, decideExpiry(initial, new Date('2026-03-10T06:00:00Z')));

      // when: a crawl of the 8th, when the publisher had withdrawn the announced date
      const events = decide(aSnapshot({ expiredAt: null, seenAt: '2026-03-08T00:00:00Z' }), expired);

      // then
      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.updated]);
      expect(apply(expired, events).expired).toBe(true);
    });

    it('when an expired advert is crawled as expired again, then nothing but a recrawl', () => {
      const initial = published();
      const expired = apply(initial, decide(aSnapshot({ expired: true, seenAt: '2026-04-01T00:00:00Z' }), initial));

      const events = decide(aSnapshot({ expired: true, seenAt: '2026-04-02T00:00:00Z' }), expired);

      expect(events.map((e) => e.type)).toEqual([ADVERT_EVENT_TYPES.recrawled]);
    });
  });

  describe('given purity', () => {
    it('when evolving a frozen state, then it is not mutated', () => {
      const state = deepFreeze(published());
      const events = decide(aSnapshot({ price: 1_000_000, title: 'y', pictures: [], seenAt: '2026-03-05T08:00:00Z' }), state);

      expect(() => apply(state, events)).not.toThrow();
      expect(state.price).toBe(289_000);
    });

    it('when evolving an event other than AdvertPublished on no state, then it throws', () => {
      expect(() => evolve(null, { type: ADVERT_EVENT_TYPES.recrawled, data: { advertId: 'x', at: 'y' } })).toThrow(/never published/);
    });
  });

  describe('given a property assignment', () => {
    it('when evolved, then the state knows its property', () => {
      const state = published();
      const next = evolve(state, {
        type: ADVERT_EVENT_TYPES.assignedToProperty,
        data: { advertId: state.uuid, propertyId: 'p-1', matchedAdvertId: null, at: state.lastCrawledAt },
      });

      expect(next).toMatchObject({ propertyId: 'p-1', version: 2 });
    });
  });
});

describe('event store mapping', () => {
  it('given decided events, when mapped twice for the same revision, then the ids are identical and revision-specific', () => {
    // given
    const snapshot = aSnapshot();
    const id = advertIdOf(snapshot);
    const events = decide(snapshot, null);

    // when
    const first = toEventData(id, -1, events, { correlationId: 'c' });
    const retry = toEventData(id, -1, events, { correlationId: 'c' });
    const later = toEventData(id, 0, events);

    // then
    expect(first.map((e) => e.id)).toEqual(retry.map((e) => e.id));
    expect(first[0]?.id).not.toBe(later[0]?.id);
    // Another decision at the same revision (a racing writer) must not look like a retry.
    const other = toEventData(id, -1, decide(aSnapshot({ price: 1_000_000 }), null));
    expect(other[0]?.id).not.toBe(first[0]?.id);
    expect(first[0]).toMatchObject({ type: 'AdvertPublished.v1', metadata: { advertId: id, correlationId: 'c' } });
  });

  it('given stored events, when read back through JSON and upcast, then replay rebuilds the same state', () => {
    // given
    const s0 = published();
    const changes = decide(aSnapshot({ price: 250_000, expired: true, seenAt: '2026-04-01T00:00:00Z' }), s0);
    const stored = JSON.parse(JSON.stringify(toEventData(s0.uuid, -1, [...decide(aSnapshot(), null), ...changes]))) as {
      type: string;
      data: unknown;
    }[];

    // when
    const state = replay(stored.map(fromRecordedEvent));

    // then
    expect(state).toEqual(apply(s0, changes));
  });

  it('given an unknown event type, when upcasting, then it throws instead of skipping', () => {
    expect(() => upcast('AdvertTeleported.v1', {})).toThrow(UnknownAdvertEventError);
  });
});

describe('contract fixture', () => {
  it('given the spec fixture, when validated against the contract, then it is a valid snapshot', () => {
    expect(validateSnapshot(aSnapshot(), new Date('2026-03-01T10:00:00Z')).ok).toBe(true);
  });
});
