import { validateSnapshot, type AdvertSnapshot } from '@immo/contracts';
import { ADVERT_EVENT_TYPES, advertIdOf, decide, evolve, type AdvertState } from '../src/domain';
import { FALLBACK_COMMUNES } from './generate-snapshots';
import { FEED_KINDS, FeedGenerator, type FeedItem, type FeedKind } from './feed-generator';

const START = Date.parse('2026-06-01T09:00:00.250Z');

/** A clock the test moves. */
function manualClock(startMs = START): { now: () => number; advance: (ms: number) => void } {
  let ms = startMs;
  return { now: () => ms, advance: (by) => (ms += by) };
}

/** `batches` batches of `size`, the clock moving `stepMs` between them; with each batch's clock. */
function run(generator: FeedGenerator, clock: ReturnType<typeof manualClock>, batches: number, size: number, stepMs = 1000): { items: FeedItem[]; at: number }[] {
  const out: { items: FeedItem[]; at: number }[] = [];
  for (let b = 0; b < batches; b++) {
    const at = clock.now();
    out.push({ items: generator.next(size), at });
    clock.advance(stepMs);
  }
  return out;
}

describe('FeedGenerator (live demo feed, no HTTP)', () => {
  const clock = manualClock();
  const generator = new FeedGenerator({ seed: 42, now: clock.now, minRevisitMs: 5_000 });
  const batches = run(generator, clock, 300, 10);
  const items = batches.flatMap((b) => b.items);

  describe('given a few minutes of batches', () => {
    it('then every snapshot passes the real snapshot validator at its batch time', () => {
      const failures = batches.flatMap(({ items: batch, at }) =>
        batch.map((i) => ({ kind: i.kind, result: validateSnapshot(JSON.parse(JSON.stringify(i.snapshot)), new Date(at)) })).filter((r) => !r.result.ok),
      );

      expect(failures).toEqual([]);
    });

    it('then the mix contains every kind, new and recrawl the most common', () => {
      const counts = new Map<FeedKind, number>();
      for (const i of items) counts.set(i.kind, (counts.get(i.kind) ?? 0) + 1);

      expect(FEED_KINDS.filter((k) => (counts.get(k) ?? 0) === 0)).toEqual([]);
      expect(counts.get('price-drop') ?? 0).toBeGreaterThan(counts.get('price-rise') ?? 0);
      expect(counts.get('recrawl') ?? 0).toBeGreaterThan(items.length * 0.2);
    });

    it('then seenAt is the injected clock, truncated to the second', () => {
      for (const { items: batch, at } of batches) {
        for (const i of batch) {
          const lag = at - Date.parse(i.snapshot.seenAt);
          expect(lag >= 0 && lag < 1000).toBe(true);
        }
      }
    });

    it('then a batch never holds two snapshots of one advert, and a revisit comes after minRevisitMs', () => {
      const lastSeen = new Map<string, number>();
      for (const { items: batch } of batches) {
        const ids = batch.map((i) => advertIdOf(i.snapshot));
        expect(new Set(ids).size).toBe(ids.length);
        for (const i of batch) {
          const id = advertIdOf(i.snapshot);
          const seen = Date.parse(i.snapshot.seenAt);
          const previous = lastSeen.get(id);
          if (previous !== undefined) expect(seen - previous).toBeGreaterThanOrEqual(5_000);
          lastSeen.set(id, seen);
        }
      }
    });

    it('then changes and recrawls are of adverts the feed published, and nothing follows an expiry', () => {
      const published = new Set<string>();
      const expired = new Set<string>();
      for (const i of items) {
        const id = advertIdOf(i.snapshot);
        expect(expired.has(id)).toBe(false);
        if (i.kind === 'new') {
          expect(published.has(id)).toBe(false);
          published.add(id);
        } else {
          expect([i.kind, published.has(id)]).toEqual([i.kind, true]);
        }
        if (i.kind === 'expiry') expired.add(id);
      }
    });
  });

  describe('given the listings domain deciding on each snapshot in turn', () => {
    it('then each kind yields the event it is named after', () => {
      const states = new Map<string, AdvertState | null>();
      const seen = new Map<FeedKind, Set<string>>();
      for (const { items: batch, at } of batches) {
        for (const { kind, snapshot } of batch) {
          const validated = validateSnapshot(JSON.parse(JSON.stringify(snapshot)), new Date(at));
          if (!validated.ok) throw new Error(JSON.stringify(validated.violations));
          const id = advertIdOf(validated.snapshot);
          let state = states.get(id) ?? null;
          const events = decide(validated.snapshot, state);
          for (const e of events) state = evolve(state, e);
          states.set(id, state);
          const types = seen.get(kind) ?? new Set<string>();
          for (const e of events) types.add(e.type);
          if (events.length === 0) types.add('(nothing)');
          seen.set(kind, types);
        }
      }
      const T = ADVERT_EVENT_TYPES;
      // Fees and deposits follow the price; an end date the advert now shows is an update too.
      const expected: Record<FeedKind, string[]> = {
        new: [T.published],
        recrawl: [T.recrawled],
        'price-drop': [T.priceChanged, T.updated],
        'price-rise': [T.priceChanged, T.updated],
        pictures: [T.picturesChanged],
        expiry: [T.expired, T.updated],
      };

      for (const kind of FEED_KINDS) {
        const types = [...(seen.get(kind) ?? [])];
        expect([kind, types.filter((t) => !expected[kind].includes(t))]).toEqual([kind, []]);
        expect([kind, types.includes(expected[kind][0] ?? '')]).toEqual([kind, true]);
      }
    });
  });

  describe('given an advert published earlier', () => {
    /** The previous snapshot of each advert, to compare a change with. */
    function withPrevious(kind: FeedKind): { before: AdvertSnapshot; after: AdvertSnapshot }[] {
      const last = new Map<string, AdvertSnapshot>();
      const pairs: { before: AdvertSnapshot; after: AdvertSnapshot }[] = [];
      for (const i of items) {
        const id = advertIdOf(i.snapshot);
        const before = last.get(id);
        if (i.kind === kind && before) pairs.push({ before, after: i.snapshot });
        last.set(id, i.snapshot);
      }
      return pairs;
    }
    const withoutVolatile = (s: AdvertSnapshot): Partial<AdvertSnapshot> => {
      const { seenAt: _seenAt, price: _price, priceExcludingFees: _pef, rentalPledge: _pledge, pictures: _p, picturesRemote: _pr, expired: _e, expiredAt: _ea, ...rest } = s;
      return rest;
    };

    it('when its price drops, then the known advert is offered cheaper, by at most 8 %, all else equal', () => {
      const drops = withPrevious('price-drop');

      expect(drops.length).toBeGreaterThan(10);
      for (const { before, after } of drops) {
        expect(after.price).toBeLessThan(before.price);
        expect(after.price).toBeGreaterThanOrEqual(Math.floor(before.price * 0.92) - 500);
        expect(withoutVolatile(after)).toEqual(withoutVolatile(before));
      }
    });

    it('when its price rises, then it costs more', () => {
      const rises = withPrevious('price-rise');

      expect(rises.length).toBeGreaterThan(0);
      for (const { before, after } of rises) expect(after.price).toBeGreaterThan(before.price);
    });

    it('when recrawled, then only seenAt moves', () => {
      const recrawls = withPrevious('recrawl');

      expect(recrawls.length).toBeGreaterThan(10);
      for (const { before, after } of recrawls) {
        expect({ ...after, seenAt: before.seenAt }).toEqual(before);
        expect(Date.parse(after.seenAt)).toBeGreaterThan(Date.parse(before.seenAt));
      }
    });

    it('when its pictures change, then the list differs and every address is distinct', () => {
      const changes = withPrevious('pictures');

      expect(changes.length).toBeGreaterThan(0);
      for (const { before, after } of changes) {
        expect(after.pictures).not.toEqual(before.pictures);
        expect(new Set(after.pictures).size).toBe(after.pictures.length);
        expect(after.picturesRemote).toHaveLength(after.pictures.length);
      }
    });

    it('when it expires, then it is withdrawn (expired) or its announced expiredAt is at or before seenAt', () => {
      const expiries = items.filter((i) => i.kind === 'expiry').map((i) => i.snapshot);
      const withdrawn = expiries.filter((s) => s.expired === true);
      const dated = expiries.filter((s) => s.expired !== true);

      expect(withdrawn.length).toBeGreaterThan(0);
      expect(dated.length).toBeGreaterThan(0);
      for (const s of withdrawn) expect(s.expiredAt ?? null).toBeNull();
      for (const s of dated) {
        expect(s.expiredAt).toEqual(expect.any(String));
        expect(Date.parse(s.expiredAt ?? '')).toBeLessThanOrEqual(Date.parse(s.seenAt));
      }
      for (const i of items.filter((x) => x.kind !== 'expiry')) {
        expect(i.snapshot.expired).toBe(false);
        expect(i.snapshot.expiredAt ?? null).toBeNull();
      }
    });
  });

  describe('given a seed and a clock', () => {
    it('when generating twice, then the output is identical; another seed or start gives other adverts', () => {
      const generate = (seed: number, startMs: number, count: number, minRevisitMs?: number): { items: FeedItem[]; at: number }[] => {
        const c = manualClock(startMs);
        return run(new FeedGenerator({ seed, now: c.now, minRevisitMs }), c, count, 10);
      };
      const again = generate(42, START, 300, 5_000);
      const otherSeed = generate(43, START, 5);
      const otherStart = generate(42, START + 1, 5);
      const references = (bs: { items: FeedItem[] }[]): Set<string | null | undefined> => new Set(bs.flatMap((b) => b.items.map((i) => i.snapshot.reference)));

      expect(JSON.stringify(again)).toBe(JSON.stringify(batches));
      for (const other of [otherSeed, otherStart]) {
        const overlap = [...references(other)].filter((r) => references(batches).has(r));
        expect(overlap).toEqual([]);
      }
    });

    it('then references name the run and never look like the demo set’s', () => {
      for (const i of items.slice(0, 200)) {
        expect(i.snapshot.reference).toMatch(new RegExp(`^[A-D]LIVE-${generator.runId}-\\d{6}$`));
        expect(i.snapshot.reference).not.toMatch(/^[A-D]\d{3,}-\d{6}$/);
      }
    });
  });

  describe('given the synthetic-data rules and the demo market model', () => {
    it('then sites, texts and addresses say synthetic; communes are the demo set’s', () => {
      const insee = new Set(FALLBACK_COMMUNES.map((c) => c.insee));
      const offenders = items
        .map((i) => i.snapshot)
        .filter(
          (s) =>
            !s.site.startsWith('synthetic-') ||
            !s.description.startsWith('Annonce fictive') ||
            !insee.has(s.commune.insee ?? '') ||
            [s.url, ...s.pictures, ...s.picturesRemote, s.virtualTour].some((u) => !!u && !new URL(u).hostname.endsWith('.example')),
        );

      expect(offenders).toEqual([]);
    });

    it('then new goods favour big communes, as the demo set does', () => {
      const news = items.filter((i) => i.kind === 'new');
      const paris = news.filter((i) => i.snapshot.commune.insee === '75056').length;
      const small = news.filter((i) => (FALLBACK_COMMUNES.find((c) => c.insee === i.snapshot.commune.insee)?.population ?? 0) < 5_000).length;

      expect(paris).toBeGreaterThan(small / 3);
    });
  });

  describe('given a bound on remembered adverts', () => {
    it('when more are published, then memory stays bounded and changes still target known adverts', () => {
      const c = manualClock();
      const bounded = new FeedGenerator({ seed: 5, now: c.now, maxTracked: 50, minRevisitMs: 1_000 });
      const out = run(bounded, c, 200, 10).flatMap((b) => b.items);

      expect(bounded.trackedCount).toBeLessThanOrEqual(50);
      expect(out.filter((i) => i.kind === 'new').length).toBeGreaterThan(200);
      expect(out.filter((i) => i.kind === 'price-drop').length).toBeGreaterThan(0);
    });

    it('when nothing is old enough to revisit, then it publishes new adverts', () => {
      const c = manualClock();
      const fresh = new FeedGenerator({ seed: 9, now: c.now });

      expect(fresh.next(20).map((i) => i.kind)).toEqual(Array.from({ length: 20 }, () => 'new'));
    });
  });

  it('refuses a seed that is not a 32-bit unsigned integer', () => {
    expect(() => new FeedGenerator({ seed: -1 })).toThrow(/seed/);
    expect(() => new FeedGenerator({ seed: 1.5 })).toThrow(/seed/);
  });
});
