import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateSnapshot, type AdvertSnapshot } from '@immo/contracts';
import { mulberry32 } from '@immo/runtime';
import {
  ADVERT_EVENT_TYPES,
  advertId,
  advertIdOf,
  decide,
  decideAssignment,
  evolve,
  PropertyMatcher,
  type AdvertState,
} from '../src/domain';
import { basePricePerMeter, FALLBACK_COMMUNES, generateDataset, generateSnapshots, writeSnapshotsJsonl } from './generate-snapshots';

const GOODS = 400;
const dataset = generateDataset({ seed: 2026, goods: GOODS });

/** Runs the whole ingestion domain over the snapshots, as the listings service would. */
function ingestAll(snapshots: readonly AdvertSnapshot[]): { states: Map<string, AdvertState>; eventCounts: Map<string, number> } {
  const matcher = new PropertyMatcher();
  const states = new Map<string, AdvertState>();
  const eventCounts = new Map<string, number>();
  for (const snapshot of snapshots) {
    const id = advertIdOf(snapshot);
    let state = states.get(id) ?? null;
    const events = decide(snapshot, state);
    for (const e of events) state = evolve(state, e);
    if (state === null) continue;
    const assignment = decideAssignment(state, matcher);
    for (const e of [...events, ...assignment]) eventCounts.set(e.type, (eventCounts.get(e.type) ?? 0) + 1);
    for (const e of assignment) state = evolve(state, e);
    states.set(id, state);
    matcher.track(state);
  }
  return { states, eventCounts };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

describe('generate-snapshots (synthetic demo data)', () => {
  describe('given a seed', () => {
    it('when generating twice, then the output is identical; another seed gives other data', () => {
      const a = JSON.stringify(generateSnapshots({ seed: 7, goods: 40 }));
      const b = JSON.stringify(generateSnapshots({ seed: 7, goods: 40 }));
      const c = JSON.stringify(generateSnapshots({ seed: 8, goods: 40 }));

      expect(a).toBe(b);
      expect(c).not.toBe(a);
    });

    it('when drawing from mulberry32, then values are in [0, 1) and repeat per seed', () => {
      const r1 = mulberry32(42);
      const r2 = mulberry32(42);
      const draws = Array.from({ length: 1000 }, () => r1());

      expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
      expect(draws.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => r2()));
    });
  });

  describe('given the generated snapshots', () => {
    it('then every snapshot passes validateSnapshot at the end of the period', () => {
      const now = new Date(dataset.end);
      const failures = dataset.snapshots
        .map((s) => validateSnapshot(JSON.parse(JSON.stringify(s)), now))
        .filter((r) => !r.ok);

      expect(dataset.snapshots.length).toBeGreaterThan(GOODS * 5);
      expect(failures).toEqual([]);
    });

    it('then they are time-ordered and every advert is crawled several times', () => {
      const times = dataset.snapshots.map((s) => Date.parse(s.seenAt));
      const perAdvert = new Map<string, number>();
      for (const s of dataset.snapshots) perAdvert.set(advertIdOf(s), (perAdvert.get(advertIdOf(s)) ?? 0) + 1);

      expect(times.every((t, i) => i === 0 || t >= (times[i - 1] ?? t))).toBe(true);
      expect(median([...perAdvert.values()])).toBeGreaterThanOrEqual(4);
    });

    it('then everything says it is synthetic', () => {
      for (const s of dataset.snapshots.slice(0, 500)) {
        expect(s.site).toMatch(/^synthetic-/);
        expect(s.description).toMatch(/fictive/);
        expect(new URL(s.url ?? '').hostname).toMatch(/\.example$/);
      }
    });

    it('then ingesting them yields every kind of advert change', () => {
      const { eventCounts } = ingestAll(dataset.snapshots);

      for (const type of [
        ADVERT_EVENT_TYPES.published,
        ADVERT_EVENT_TYPES.priceChanged,
        ADVERT_EVENT_TYPES.surfaceChanged,
        ADVERT_EVENT_TYPES.picturesChanged,
        ADVERT_EVENT_TYPES.expired,
        ADVERT_EVENT_TYPES.recrawled,
        ADVERT_EVENT_TYPES.assignedToProperty,
      ]) {
        expect([type, (eventCounts.get(type) ?? 0) > 0]).toEqual([type, true]);
      }
      // Both ways of expiring occur: withdrawn by the crawler, and announced expiry date passed.
      expect(dataset.snapshots.some((s) => s.expired === true)).toBe(true);
      expect(dataset.snapshots.some((s) => s.expiredAt && Date.parse(s.expiredAt) <= Date.parse(s.seenAt))).toBe(true);
    });

    it('then both publisher types and several sites appear', () => {
      const types = new Set(dataset.snapshots.map((s) => s.publisher.type));
      const sites = new Set(dataset.snapshots.map((s) => s.site));

      expect([...types].sort()).toEqual([0, 1]);
      expect(sites.size).toBeGreaterThanOrEqual(4);
    });
  });

  describe('given the market model', () => {
    const firstSeen = new Map<string, AdvertSnapshot>();
    for (const s of dataset.snapshots) if (!firstSeen.has(advertIdOf(s))) firstSeen.set(advertIdOf(s), s);
    const flats = [...firstSeen.values()].filter((s) => s.propertyType === 0 && s.surface);
    const perMeter = (s: AdvertSnapshot): number => s.price / (s.surface ?? 1);

    it('then Paris flats sell around 10,000 €/m² and small-town flats well under 3,000 €/m²', () => {
      const paris = flats.filter((s) => s.transactionType === 0 && s.commune.insee === '75056').map(perMeter);
      const small = flats
        .filter((s) => s.transactionType === 0 && (FALLBACK_COMMUNES.find((c) => c.insee === s.commune.insee)?.population ?? 0) < 50_000)
        .map(perMeter);

      expect(paris.length).toBeGreaterThan(10);
      expect(median(paris)).toBeGreaterThan(8_500);
      expect(median(paris)).toBeLessThan(11_500);
      expect(median(small)).toBeLessThan(3_000);
      expect(basePricePerMeter({ insee: '00000', name: 'x', zipcode: '00000', departmentCode: '99', population: 500, lat: 0, lon: 0 })).toBeLessThan(2_000);
    });

    it('then monthly rents are about price per m² / 250 per m²', () => {
      const parisRents = flats.filter((s) => s.transactionType === 1 && s.commune.insee === '75056' && !s.furnished).map(perMeter);

      expect(median(parisRents)).toBeGreaterThan(32);
      expect(median(parisRents)).toBeLessThan(48);
    });
  });

  describe('given the goods listed by several publishers', () => {
    const { states } = ingestAll(dataset.snapshots);
    const propertyOf = (site: string, reference: string): string | null => states.get(advertId(site, reference))?.propertyId ?? null;
    const multi = dataset.goods.filter((g) => new Set(g.listings.map((l) => l.site + l.reference)).size > 1);

    it('then about 20 % of goods have several adverts', () => {
      const share = multi.length / dataset.goods.length;
      expect(share).toBeGreaterThan(0.14);
      expect(share).toBeLessThan(0.3);
    });

    it('then the grouping rule puts all adverts of each such good into one property', () => {
      const split = multi.filter((g) => new Set(g.listings.map((l) => propertyOf(l.site, l.reference))).size !== 1);

      expect(split.map((g) => g.goodId)).toEqual([]);
    });

    it('then distinct goods are rarely merged', () => {
      const goodsPerProperty = new Map<string, Set<string>>();
      for (const good of dataset.goods) {
        for (const l of good.listings) {
          const p = propertyOf(l.site, l.reference);
          if (p === null) continue;
          const set = goodsPerProperty.get(p) ?? new Set<string>();
          set.add(good.goodId);
          goodsPerProperty.set(p, set);
        }
      }
      const merged = [...goodsPerProperty.values()].filter((s) => s.size > 1).length;

      expect(merged / goodsPerProperty.size).toBeLessThan(0.02);
    });
  });

  describe('given a file path', () => {
    it('when writing JSONL, then one parseable snapshot per line is written', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'snapshots-'));
      try {
        const path = join(dir, 'snapshots.jsonl');
        const { count } = await writeSnapshotsJsonl(path, { seed: 3, goods: 20 });
        const lines = readFileSync(path, 'utf8').trimEnd().split('\n');

        expect(lines).toHaveLength(count);
        expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(JSON.parse(JSON.stringify(generateSnapshots({ seed: 3, goods: 20 }))));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
