import fc from 'fast-check';
import type { AdvertState } from './advert.events';
import { bucketKeyOf, DEFAULT_GROUPING_THRESHOLDS, matchScore, PropertyMatcher, propertyIdFor, type GroupableAdvert } from './property-grouping';

type Tracked = GroupableAdvert & { propertyId: string };

const DAY_MS = 86_400_000;
const canonical = (ms: number) => new Date(ms).toISOString().slice(0, 19) + '+00:00';
const NOW = Date.parse('2026-06-01T00:00:00Z');

/**
 * Adverts over two communes and two types, so that buckets hold many close candidates; common
 * values recur often, so that candidates tie on score and the tie-break decides.
 */
const advert = fc
  .record({
    n: fc.integer({ min: 0, max: 30 }),
    insee: fc.constantFrom('69123', '75056'),
    propertyType: fc.constantFrom(0, 1),
    surface: fc.option(fc.oneof(fc.constant(45), fc.integer({ min: 400, max: 460 }).map((v) => v / 10)), { nil: null }),
    landSurface: fc.option(fc.integer({ min: 300, max: 340 }), { nil: null }),
    room: fc.option(fc.constantFrom(2, 3), { nil: null, freq: 2 }),
    floor: fc.option(fc.constantFrom(1, 2), { nil: null, freq: 2 }),
    energy: fc.option(fc.constantFrom('C', 'D'), { nil: null, freq: 2 }),
    price: fc.oneof(fc.constant(200_000), fc.integer({ min: 180_000, max: 210_000 })),
    location: fc.oneof(fc.constant(null), fc.constant({ lat: 45.76, lon: 4.85 }), fc.record({ lat: fc.integer({ min: 0, max: 40 }).map((d) => 45.76 + d / 10_000), lon: fc.constant(4.85) })),
    site: fc.constantFrom('site-a', 'site-b'),
    publisher: fc.constantFrom('agency-1', 'agency-2'),
    expiredDaysAgo: fc.option(fc.integer({ min: 1, max: 800 }), { nil: null, freq: 2 }),
    property: fc.integer({ min: 0, max: 8 }),
  })
  .map(
    (a): Tracked => ({
      uuid: `advert-${a.n}`,
      site: a.site,
      publisher: { name: a.publisher, category: 'agency', type: 1 } as AdvertState['publisher'],
      transactionType: 0,
      propertyType: a.propertyType,
      commune: { insee: a.insee } as AdvertState['commune'],
      surface: a.surface,
      landSurface: a.landSurface,
      room: a.room,
      floor: a.floor,
      energy: a.energy === null ? null : ({ category: a.energy } as AdvertState['energy']),
      price: a.price,
      location: a.location,
      expired: a.expiredDaysAgo !== null,
      expiredAt: a.expiredDaysAgo === null ? null : canonical(NOW - a.expiredDaysAgo * DAY_MS),
      lastCrawledAt: canonical(NOW - DAY_MS),
      propertyId: propertyIdFor(`seed-${a.property}`),
    }),
  );

/** A live 45 m² flat in Lyon, grouped under `p1`. */
const BASE: Tracked = {
  uuid: 'a1',
  site: 'site-a',
  publisher: { name: 'agency-1', category: 'agency', type: 1 } as AdvertState['publisher'],
  transactionType: 0,
  propertyType: 0,
  commune: { insee: '69123' } as AdvertState['commune'],
  surface: 45,
  landSurface: null,
  room: 2,
  floor: 1,
  energy: null,
  price: 200_000,
  location: null,
  expired: false,
  expiredAt: null,
  lastCrawledAt: canonical(NOW),
  propertyId: 'p1',
};

/** The rule applied to every tracked advert, one by one: what the index must find. */
function bruteForce(tracked: Iterable<Tracked>, probe: GroupableAdvert): string | null {
  const cutoff = canonical(Math.floor((Date.parse(probe.lastCrawledAt) - DEFAULT_GROUPING_THRESHOLDS.expiredRetentionDays * DAY_MS) / 1000) * 1000);
  let best: Tracked | null = null;
  let bestScore = Infinity;
  for (const member of tracked) {
    if (bucketKeyOf(member) !== bucketKeyOf(probe) || member.uuid === probe.uuid) continue;
    if (!member.expired && member.site === probe.site && member.publisher.name === probe.publisher.name) continue;
    if (member.expired && member.expiredAt !== null && member.expiredAt < cutoff) continue;
    const score = matchScore(probe, member);
    if (score === null) continue;
    if (best === null || score < bestScore || (score === bestScore && member.propertyId < best.propertyId)) {
      best = member;
      bestScore = score;
    }
  }
  return best?.propertyId ?? null;
}

describe('PropertyMatcher', () => {
  it('finds what the rule finds by comparing the probe with every tracked advert, through re-tracks and removals', () => {
    fc.assert(
      fc.property(fc.array(advert, { maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 5 }), advert, (adverts, removed, probe) => {
        const matcher = new PropertyMatcher();
        const tracked = new Map<string, Tracked>();
        // Later states of an advert re-track it under new attributes.
        for (const a of adverts) {
          matcher.track(a);
          tracked.set(a.uuid, a);
        }
        for (const n of removed) {
          matcher.remove(`advert-${n}`);
          tracked.delete(`advert-${n}`);
        }
        expect(matcher.size).toBe(tracked.size);
        const probeAdvert = { ...probe, uuid: 'probe' };
        const expected = bruteForce(tracked.values(), probeAdvert);
        expect(matcher.match(probeAdvert).propertyId).toBe(expected ?? propertyIdFor('probe'));
      }),
      { numRuns: 300 },
    );
  });

  it('breaks a tie on score by the smaller property id, whichever member was tracked first', () => {
    for (const order of [
      ['p-b', 'p-a'],
      ['p-a', 'p-b'],
    ]) {
      const matcher = new PropertyMatcher();
      order.forEach((propertyId, i) => matcher.track({ ...BASE, uuid: `member-${i}`, site: `site-${i}`, propertyId }));
      expect(matcher.match({ ...BASE, uuid: 'probe', site: 'site-probe' }).propertyId).toBe('p-a');
    }
  });

  it('reuses the slot of a removed advert without keeping anything of it', () => {
    const matcher = new PropertyMatcher();
    const base = BASE;
    matcher.track(base);
    matcher.remove('a1');
    matcher.track({ ...base, uuid: 'a2', surface: 80, propertyId: 'p2' });
    expect(matcher.size).toBe(1);
    expect(matcher.propertyOf('a1')).toBeUndefined();
    expect(matcher.propertyOf('a2')).toBe('p2');
    // The 45 m² advert is gone: a 45 m² probe from another publisher founds its own property.
    expect(matcher.match({ ...base, uuid: 'probe', site: 'site-b' }).matchedAdvertId).toBeNull();
    expect(matcher.match({ ...base, uuid: 'probe', site: 'site-b', surface: 80 }).matchedAdvertId).toBe('a2');
  });
});
