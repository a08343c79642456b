import type { AdvertSnapshot } from '@immo/contracts';
import { advertIdOf, decide, evolve, replay } from './advert';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertState } from './advert.events';
import {
  bucketKeyOf,
  decideAssignment,
  distanceMeters,
  isSameGood,
  PropertyMatcher,
  propertyIdFor,
} from './property-grouping';
import { aSnapshot } from './snapshot.fixture';

/** The ingestion pipeline in miniature: decide, fold, assign when new, fold, re-index. */
class Ingestion {
  readonly matcher = new PropertyMatcher();
  readonly states = new Map<string, AdvertState>();
  readonly streams = new Map<string, AdvertDomainEvent[]>();

  ingest(snapshot: AdvertSnapshot): AdvertState {
    const id = advertIdOf(snapshot);
    const current = this.states.get(id) ?? null;
    const events = decide(snapshot, current);
    let state = events.reduce<AdvertState | null>((s, e) => evolve(s, e), current);
    if (state === null) throw new Error('no state');
    const assignment = decideAssignment(state, this.matcher);
    state = assignment.reduce<AdvertState>((s, e) => evolve(s, e), state);
    this.streams.set(id, [...(this.streams.get(id) ?? []), ...events, ...assignment]);
    this.states.set(id, state);
    this.matcher.track(state);
    return state;
  }
}

/** The same flat as `aSnapshot`, as a private seller lists it on another site. */
function sameFlatElsewhere(overrides: Partial<AdvertSnapshot> = {}): AdvertSnapshot {
  return aSnapshot({
    site: 'synthetic-classifieds-b',
    siteCategory: 'classifieds',
    reference: 'B-77',
    url: 'https://synthetic-classifieds-b.example/ad/77',
    publisher: { name: 'Particulier', category: 'individual', type: 0 },
    price: 279_000,
    surface: 63.5,
    location: { lat: 45.7603, lon: 4.8561 },
    seenAt: '2026-03-04T09:00:00Z',
    ...overrides,
  });
}

describe('property grouping', () => {
  describe('given a flat listed by an agency', () => {
    it('when it is the first advert, then it founds a property whose id is the v5 uuid of the advert id', () => {
      const pipeline = new Ingestion();

      const state = pipeline.ingest(aSnapshot());

      expect(state.propertyId).toBe(propertyIdFor(state.uuid));
      expect(pipeline.streams.get(state.uuid)?.map((e) => e.type)).toEqual([
        ADVERT_EVENT_TYPES.published,
        ADVERT_EVENT_TYPES.assignedToProperty,
      ]);
    });

    it('when a private seller lists the same flat on another site, then both adverts share the property', () => {
      // given
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());

      // when
      const second = pipeline.ingest(sameFlatElsewhere());

      // then
      expect(second.propertyId).toBe(first.propertyId);
      expect(pipeline.streams.get(second.uuid)?.[1]).toMatchObject({
        type: ADVERT_EVENT_TYPES.assignedToProperty,
        data: { propertyId: first.propertyId, matchedAdvertId: first.uuid },
      });
    });

    it('when the other advert has a different number of rooms, then it is another property', () => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());

      const second = pipeline.ingest(sameFlatElsewhere({ room: 2 }));

      expect(second.propertyId).not.toBe(first.propertyId);
    });

    it('when the other advert is 500 m away, then it is another property', () => {
      // given
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());
      const farAway = { lat: 45.7597 + 0.0045, lon: 4.8553 };
      expect(distanceMeters(45.7597, 4.8553, farAway.lat, farAway.lon)).toBeGreaterThan(490);

      // when
      const second = pipeline.ingest(sameFlatElsewhere({ location: farAway }));

      // then
      expect(second.propertyId).not.toBe(first.propertyId);
    });

    it('when the other advert has no coordinates, then the distance rule is skipped', () => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());

      const second = pipeline.ingest(sameFlatElsewhere({ location: null }));

      expect(second.propertyId).toBe(first.propertyId);
    });

    it.each([
      ['another floor', { floor: 2, location: null }],
      ['another energy letter', { energy: { category: 'F' as const, value: 350 }, location: null }],
      ['a price 12 % lower', { price: 254_000 }],
      ['a surface 4 m² larger', { surface: 68 }],
      ['another commune', { commune: { insee: '69266' } }],
      ['another transaction type', { transactionType: 1 as const, price: 1_200 }],
      ['another property type', { propertyType: 1 as const }],
    ])('when the other advert has %s, then it is another property', (_label, overrides) => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());

      const second = pipeline.ingest(sameFlatElsewhere(overrides));

      expect(second.propertyId).not.toBe(first.propertyId);
    });

    it('when the other advert is within 2 m² on a small flat (more than 3 %), then it is the same property', () => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot({ surface: 30, room: 1, price: 150_000 }));

      const second = pipeline.ingest(sameFlatElsewhere({ surface: 31.8, room: 1, price: 145_000 }));

      expect(second.propertyId).toBe(first.propertyId);
    });
  });

  describe('given re-listings by the same publisher', () => {
    it('when the first advert expired and the good is listed again under a new reference, then it is the same property', () => {
      // given
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());
      pipeline.ingest(aSnapshot({ expired: true, seenAt: '2026-04-01T00:00:00Z' }));

      // when
      const relisted = pipeline.ingest(
        aSnapshot({ reference: 'SPA-2', url: 'https://synthetic-portal-a.example/annonces/SPA-2', price: 275_000, seenAt: '2026-05-10T00:00:00Z' }),
      );

      // then
      expect(relisted.uuid).not.toBe(first.uuid);
      expect(relisted.propertyId).toBe(first.propertyId);
    });

    it('when the first advert is still live, then a similar advert of the same publisher is another lot', () => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());

      const lot = pipeline.ingest(aSnapshot({ reference: 'SPA-2', url: 'https://synthetic-portal-a.example/annonces/SPA-2' }));

      expect(lot.propertyId).not.toBe(first.propertyId);
    });

    it('when the first advert expired more than a year before, then the re-listing founds a new property', () => {
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());
      pipeline.ingest(aSnapshot({ expired: true, seenAt: '2026-04-01T00:00:00Z' }));

      const late = pipeline.ingest(aSnapshot({ reference: 'SPA-3', seenAt: '2027-06-01T00:00:00Z' }));

      expect(late.propertyId).not.toBe(first.propertyId);
    });
  });

  describe('given several matching properties', () => {
    it('when an advert matches both, then it joins the closest whatever the insertion order', () => {
      // given: two lots of one programme by one agency, so two properties
      const near = aSnapshot({ reference: 'LOT-1', surface: 64, price: 289_000 });
      const far = aSnapshot({ reference: 'LOT-2', surface: 62.5, price: 281_000 });
      const candidate = sameFlatElsewhere({ surface: 64.2, price: 288_000, location: null });

      for (const order of [
        [near, far],
        [far, near],
      ]) {
        const pipeline = new Ingestion();
        const states = order.map((s) => pipeline.ingest(s));
        const nearState = states.find((s) => s.reference === 'LOT-1');

        // when
        const joined = pipeline.ingest(candidate);

        // then
        expect(joined.propertyId).toBe(nearState?.propertyId);
      }
    });
  });

  describe('given land without a living surface', () => {
    it('when two adverts of the same plot differ by 8 m² of land, then they share the property', () => {
      const plot = { propertyType: 5 as const, surface: null, room: null, bedroom: null, price: 95_000 };
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot({ ...plot, landSurface: 850 }));

      const second = pipeline.ingest(sameFlatElsewhere({ ...plot, landSurface: 858, price: 92_000 }));

      expect(second.propertyId).toBe(first.propertyId);
    });

    it('when neither advert has any surface, then they are never grouped', () => {
      const parking = { propertyType: 3 as const, surface: null, landSurface: null, room: null, bedroom: null, price: 25_000 };
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot(parking));

      const second = pipeline.ingest(sameFlatElsewhere(parking));

      expect(second.propertyId).not.toBe(first.propertyId);
    });
  });

  describe('given a commune known only by zipcode and name', () => {
    it('when the names differ in accents and case, then the bucket is the same', () => {
      const a = { transactionType: 0 as const, propertyType: 0 as const, commune: { insee: null, zipcode: '42000', name: 'Saint-Étienne' } };
      const b = { ...a, commune: { insee: null, zipcode: '42000', name: 'SAINT ETIENNE' } };

      expect(bucketKeyOf(a)).toBe(bucketKeyOf(b));
    });
  });

  describe('given a rebuild', () => {
    it('when the advert streams are replayed, then the recorded property ids come back and nothing is reassigned', () => {
      // given
      const pipeline = new Ingestion();
      pipeline.ingest(aSnapshot());
      pipeline.ingest(sameFlatElsewhere());
      const before = [...pipeline.states.values()].map((s) => s.propertyId);

      // when: fresh matcher, states rebuilt from the stored events only
      const matcher = new PropertyMatcher();
      const rebuilt = [...pipeline.streams.values()].map((events) => replay(events));
      rebuilt.forEach((s) => s && matcher.track(s));

      // then
      expect(rebuilt.map((s) => s?.propertyId)).toEqual(before);
      expect(rebuilt.flatMap((s) => (s ? decideAssignment(s, matcher) : []))).toEqual([]);
      expect(matcher.size).toBe(2);
    });
  });

  describe('given a tracked advert whose price changes', () => {
    it('when re-tracked, then matching uses the new price', () => {
      // given
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());
      pipeline.ingest(aSnapshot({ price: 240_000, seenAt: '2026-03-02T10:00:00Z' }));

      // when: 279,000 was within 10 % of 289,000 but not of 240,000
      const second = pipeline.ingest(sameFlatElsewhere());

      // then
      expect(second.propertyId).not.toBe(first.propertyId);
    });

    it('when re-tracked, then its entry is overwritten, not deleted and added again', () => {
      // given: deleting an entry leaves a deleted slot in V8's hash table, rebuilt whole once they fill it
      const pipeline = new Ingestion();
      const first = pipeline.ingest(aSnapshot());
      const deleted = jest.spyOn(Map.prototype, 'delete');

      // when
      try {
        pipeline.matcher.track({ ...first, price: 240_000 });
        expect(deleted).not.toHaveBeenCalled();
      } finally {
        deleted.mockRestore();
      }

      // then: the index holds the advert once, under its new price
      expect(pipeline.matcher.size).toBe(1);
      expect(pipeline.ingest(sameFlatElsewhere()).propertyId).not.toBe(first.propertyId);
    });
  });

  describe('given a large index', () => {
    it('when matching, then only the bucket and the surface bins in tolerance are examined', () => {
      // given: 6,000 grouped adverts across communes, types and surfaces
      const matcher = new PropertyMatcher();
      const communes = ['69123', '75056', '13055'];
      for (let i = 0; i < 6000; i++) {
        const state = replay(
          decide(
            aSnapshot({
              reference: `BULK-${i}`,
              commune: { insee: communes[i % 3] ?? '69123' },
              propertyType: i % 2 === 0 ? 0 : 1,
              surface: 20 + (i % 200),
            }),
            null,
          ),
        );
        if (state) matcher.track({ ...state, propertyId: propertyIdFor(state.uuid) });
      }
      expect(matcher.size).toBe(6000);

      // when
      const probe = replay(decide(sameFlatElsewhere(), null));
      if (!probe) throw new Error('no probe');
      matcher.match(probe);

      // then: ~1,000 adverts share the probe's bucket; only those in a few 5 % bins are looked at
      expect(matcher.lastScanCount).toBeGreaterThan(0);
      expect(matcher.lastScanCount).toBeLessThan(120);
    });
  });

  describe('isSameGood', () => {
    it('given two advert states of the same flat, when compared, then the attribute rule holds both ways', () => {
      const a = replay(decide(aSnapshot(), null));
      const b = replay(decide(sameFlatElsewhere(), null));
      if (!a || !b) throw new Error('no state');

      expect(isSameGood(a, b)).toBe(true);
      expect(isSameGood(b, a)).toBe(true);
      expect(isSameGood(a, { ...b, room: 4 })).toBe(false);
    });
  });
});
