/**
 * Seeded generator of SYNTHETIC advert snapshots for real French communes, for demos, load tests
 * and grouping checks. Every site, publisher, contact, URL and text is fictitious: sites are
 * named `synthetic-*`, URLs use the reserved `.example` domain, phone numbers the ranges reserved
 * for fiction, and every description says the advert is fictitious.
 *
 * The output is a time-ordered sequence of snapshots, as crawlers would deliver them: every listing
 * is crawled repeatedly during its life, so the same advert appears many times, mostly unchanged
 * (recrawls), sometimes with a price drop, a surface correction, new pictures, and finally an
 * expiry. About 20 % of goods are listed by several publishers at once (their adverts should be
 * grouped into one property), and a few expired goods are re-listed later by the same publisher
 * under a new reference.
 *
 * Distributions (rough orders of magnitude of the French market, not statistics):
 * - sale price per m²: about 10,000 € in Paris, 3,500-5,000 € in big cities, 2,000-3,000 € in
 *   mid-size towns, 1,000-2,000 € in small towns and the countryside, scaled by a department
 *   factor and a few known expensive communes; ±12 % log-normal noise per good;
 * - monthly rent: price per m² / 250 per m², +15 % furnished;
 * - property types by commune size (flats dominate cities, houses the countryside), surfaces and
 *   rooms by type, land surfaces for houses and plots, DPE energy / GHG letters with values inside
 *   each letter's band.
 *
 * Deterministic: the same options give the same snapshots, byte for byte (mulberry32 PRNG, no
 * clock, fixed default start date).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { PROPERTY_TYPE_LABELS, type AdvertSnapshot } from '@immo/contracts';
import { mulberry32 } from '@immo/runtime';
import { FALLBACK_COMMUNES, type DemoCommune } from './fallback-communes';

export { FALLBACK_COMMUNES, type DemoCommune };

export interface GenerateOptions {
  /** PRNG seed. Default 1. */
  seed?: number;
  /** Number of distinct goods (flats, houses...). Default 500. */
  goods?: number;
  /** Communes to place goods in, weighted by population; default: the built-in fallback list. */
  communes?: readonly DemoCommune[];
  /** First possible crawl, ISO date-time. Default 2026-01-05T00:00:00Z. */
  start?: string;
  /** Length of the crawled period in days. Default 182 (about six months). */
  days?: number;
  /** Share of goods listed by several publishers. Default 0.2. */
  multiPublisherShare?: number;
}

/** Ground truth about one good, for checking grouping; never part of the snapshots. */
export interface SyntheticGood {
  goodId: string;
  insee: string;
  /** Identities (site + reference) of the adverts of this good, re-listings included. */
  listings: { site: string; reference: string }[];
}

export interface GeneratedDataset {
  snapshots: AdvertSnapshot[];
  goods: SyntheticGood[];
  /** Time of the last possible crawl; validate with a `now` at or after it. */
  end: string;
}

// ---------------------------------------------------------------------------------------------
// PRNG (mulberry32 from @immo/contracts)
// ---------------------------------------------------------------------------------------------

/** The PRNG helpers the generator draws with; shared with the live feed (`feed-generator.ts`). */
export class Random {
  constructor(private readonly next: () => number) {}

  float(): number {
    return this.next();
  }

  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    let r = this.next() * total;
    for (const [value, w] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (last === undefined) throw new Error('weighted pick from an empty list');
    return last[0];
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }
}

// ---------------------------------------------------------------------------------------------
// market model
// ---------------------------------------------------------------------------------------------

type PropertyType = AdvertSnapshot['propertyType'];
type TransactionType = AdvertSnapshot['transactionType'];

/** Department multipliers on the size-tier price; departments not listed use 0.9. */
const DEPARTMENT_FACTOR: Readonly<Record<string, number>> = {
  '75': 1,
  '92': 1.9,
  '78': 1.5,
  '94': 1.5,
  '93': 1.2,
  '06': 1.35,
  '74': 1.4,
  '64': 1.2,
  '33': 1.2,
  '69': 1.25,
  '17': 1.15,
  '56': 1.1,
  '13': 1,
  '44': 1.1,
  '35': 1.1,
  '34': 1.05,
  '31': 1,
  '59': 0.95,
  '67': 1,
  '29': 0.85,
  '38': 0.85,
  '21': 0.85,
  '49': 0.95,
  '51': 0.8,
  '87': 0.7,
  '76': 0.75,
  '42': 0.55,
  '23': 0.6,
  '15': 0.65,
  '48': 0.7,
  '52': 0.55,
  '18': 0.6,
  '19': 0.75,
  '24': 0.85,
  '39': 0.75,
  '46': 0.9,
};

/** Communes much dearer than their size and department suggest (€/m², sale). */
const COMMUNE_PRICE_OVERRIDES: Readonly<Record<string, number>> = {
  '92012': 9_000, // Boulogne-Billancourt
  '78646': 7_000, // Versailles
  '64122': 6_800, // Biarritz
  '33009': 6_500, // Arcachon
  '74010': 5_200, // Annecy
};

/** Sale price per m² of a flat in the commune, before per-good noise. */
export function basePricePerMeter(commune: DemoCommune): number {
  const override = COMMUNE_PRICE_OVERRIDES[commune.insee];
  if (override !== undefined) return override;
  const tier =
    commune.population >= 1_000_000
      ? 10_000
      : commune.population >= 200_000
        ? 3_800
        : commune.population >= 50_000
          ? 2_800
          : commune.population >= 10_000
            ? 2_000
            : 1_500;
  return tier * (DEPARTMENT_FACTOR[commune.departmentCode] ?? 0.9);
}

type SizeClass = 'city' | 'town' | 'rural';

function sizeClassOf(commune: DemoCommune): SizeClass {
  return commune.population >= 100_000 ? 'city' : commune.population >= 10_000 ? 'town' : 'rural';
}

const TYPE_WEIGHTS: Readonly<Record<SizeClass, readonly (readonly [PropertyType, number])[]>> = {
  city: [[0, 72], [1, 9], [3, 7], [4, 4], [6, 4], [5, 1], [2, 3]],
  town: [[0, 48], [1, 34], [3, 5], [4, 3], [6, 4], [5, 4], [2, 2]],
  rural: [[0, 18], [1, 60], [3, 3], [4, 2], [6, 4], [5, 12], [2, 1]],
};

/** Price per m² multiplier by property type, relative to flats. */
const TYPE_PRICE_FACTOR: Readonly<Record<PropertyType, number>> = { 0: 1, 1: 0.9, 2: 0.8, 3: 1, 4: 0.85, 5: 1, 6: 0.8 };


const ENERGY_LETTERS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;
type EnergyLetter = (typeof ENERGY_LETTERS)[number];
/** Share of each DPE letter among listed homes. */
const ENERGY_WEIGHTS: readonly (readonly [EnergyLetter, number])[] = [
  ['A', 3],
  ['B', 7],
  ['C', 20],
  ['D', 30],
  ['E', 22],
  ['F', 11],
  ['G', 7],
];
/** Value bands per letter: energy in kWh/m²/year, greenhouse gas in kg CO2/m²/year. */
const ENERGY_BANDS: Readonly<Record<EnergyLetter, readonly [number, number]>> = {
  A: [40, 69], B: [70, 110], C: [111, 180], D: [181, 250], E: [251, 330], F: [331, 420], G: [421, 600],
};
const GHG_BANDS: Readonly<Record<EnergyLetter, readonly [number, number]>> = {
  A: [1, 5], B: [6, 10], C: [11, 29], D: [30, 49], E: [50, 69], F: [70, 99], G: [100, 140],
};

const FEATURES = [
  'balcon', 'terrasse', 'cave', 'parking', 'jardin', 'gardien', 'double vitrage', 'piscine', 'cheminée',
  'parquet', 'digicode', 'fibre', 'cuisine équipée', 'dressing', 'vue dégagée',
] as const;

export interface SiteProfile {
  site: string;
  category: string;
  acceptsIndividuals: boolean;
  /** Days between two crawls of one advert. */
  crawlEveryDays: readonly [number, number];
}

export const SITES: readonly SiteProfile[] = [
  { site: 'synthetic-portal-a', category: 'portal', acceptsIndividuals: true, crawlEveryDays: [3, 6] },
  { site: 'synthetic-portal-b', category: 'portal', acceptsIndividuals: false, crawlEveryDays: [4, 8] },
  { site: 'synthetic-classifieds-c', category: 'classifieds', acceptsIndividuals: true, crawlEveryDays: [2, 5] },
  { site: 'synthetic-network-d', category: 'agency-network', acceptsIndividuals: false, crawlEveryDays: [6, 10] },
];

const FIRST_NAMES = ['Camille', 'Dominique', 'Maxime', 'Alix', 'Sacha', 'Morgan', 'Charlie', 'Lou'] as const;
const AGENCY_WORDS = ['Horizon', 'Clé', 'Patrimoine', 'Habitat', 'Demeures', 'Quartiers', 'Transactions'] as const;

export interface Publisher {
  name: string;
  category: string;
  type: 0 | 1;
  slug: string;
  phone: string;
}

// ---------------------------------------------------------------------------------------------
// goods and listings
// ---------------------------------------------------------------------------------------------

export interface Good {
  goodId: string;
  commune: DemoCommune;
  transactionType: TransactionType;
  propertyType: PropertyType;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  bedroom: number | null;
  floor: number | null;
  floorQuantity: number | null;
  lotCount: number | null;
  constructionYear: number | null;
  elevator: boolean | null;
  furnished: boolean | null;
  energy: { category: EnergyLetter; value: number } | null;
  greenHouseGas: { category: EnergyLetter; value: number } | null;
  features: string[];
  price: number;
  lat: number;
  lon: number;
}

/** Mutable state of one advert as the publisher shows it over time. */
export interface Listing {
  site: SiteProfile;
  publisher: Publisher;
  reference: string;
  good: Good;
  price: number;
  surface: number | null;
  room: number | null;
  pictures: string[];
  picturesRemote: string[];
  located: boolean;
  lat: number;
  lon: number;
  virtualTour: string | null;
  expiredAt: string | null;
  feesPercentage: number | null;
}

interface Timed {
  ms: number;
  seq: number;
  snapshot: AdvertSnapshot;
}

const DAY_MS = 86_400_000;

/** Weights for `Random.weighted` over communes. */
export function communeWeightsOf(communes: readonly DemoCommune[]): (readonly [DemoCommune, number])[] {
  // Weight by sqrt(population): big cities dominate as on real portals, small places still appear.
  return communes.map((c) => [c, Math.sqrt(Math.max(c.population, 50))] as const);
}

export function generateDataset(options: GenerateOptions = {}): GeneratedDataset {
  const seed = options.seed ?? 1;
  const goodCount = options.goods ?? 500;
  const communes = options.communes && options.communes.length > 0 ? options.communes : FALLBACK_COMMUNES;
  const startMs = Date.parse(options.start ?? '2026-01-05T00:00:00Z');
  const days = options.days ?? 182;
  const endMs = startMs + days * DAY_MS;
  const multiShare = options.multiPublisherShare ?? 0.2;
  const rnd = new Random(mulberry32(seed));

  const communeWeights = communeWeightsOf(communes);
  const agencies = new Map<string, Publisher[]>();
  const out: Timed[] = [];
  const goods: SyntheticGood[] = [];
  let seq = 0;
  let referenceCounter = 0;
  const emit = (ms: number, snapshot: AdvertSnapshot): void => {
    out.push({ ms, seq: seq++, snapshot });
  };
  const nextReference = (site: SiteProfile): string => {
    referenceCounter++;
    return `${site.site.slice(-1).toUpperCase()}${String(seed).padStart(3, '0')}-${String(referenceCounter).padStart(6, '0')}`;
  };

  for (let g = 0; g < goodCount; g++) {
    const commune = rnd.weighted(communeWeights);
    const good = makeGood(rnd, `good-${seed}-${g}`, commune);
    const truth: SyntheticGood = { goodId: good.goodId, insee: commune.insee, listings: [] };
    goods.push(truth);

    const multi = rnd.chance(multiShare);
    const listingCount = multi ? (rnd.chance(0.75) ? 2 : 3) : 1;
    // New goods keep coming up to the end of the period, as on a live portal: newest-first looks current.
    const firstDay = rnd.between(0, days * 0.98);
    const usedPublishers = new Set<string>();
    const listings: { listing: Listing; fromMs: number }[] = [];
    for (let l = 0; l < listingCount; l++) {
      let site = rnd.pick(SITES);
      let publisher = pickPublisher(rnd, site, commune, agencies);
      // Distinct publishers: the same one twice would be a duplicate, not a multi-listing.
      for (let attempt = 0; attempt < 8 && usedPublishers.has(site.site + publisher.name); attempt++) {
        site = rnd.pick(SITES);
        publisher = pickPublisher(rnd, site, commune, agencies);
      }
      usedPublishers.add(site.site + publisher.name);
      const fromMs = startMs + (firstDay + (l === 0 ? 0 : rnd.between(0.5, 30))) * DAY_MS;
      if (fromMs >= endMs) continue;
      const listing = makeListing(rnd, site, publisher, nextReference(site), good, multi);
      listings.push({ listing, fromMs });
      truth.listings.push({ site: site.site, reference: listing.reference });
    }
    // Changes on goods with several adverts start once all are listed, so that the adverts still
    // agree when grouping compares them; afterwards they drift like any advert.
    const changesFromMs = Math.max(...listings.map((x) => x.fromMs));
    for (const { listing, fromMs } of listings) {
      const expiredAtMs = crawlListing(rnd, listing, fromMs, changesFromMs, endMs, multi, emit);
      if (expiredAtMs !== null && listingCount === 1 && rnd.chance(0.08)) {
        // Re-listing by the same publisher under a new reference, a little cheaper.
        const relistMs = expiredAtMs + rnd.between(10, 40) * DAY_MS;
        if (relistMs < endMs) {
          const relisted = makeListing(rnd, listing.site, listing.publisher, nextReference(listing.site), good, false);
          relisted.price = roundPrice(listing.price * rnd.between(0.94, 0.97), good.transactionType);
          relisted.surface = listing.surface;
          truth.listings.push({ site: listing.site.site, reference: relisted.reference });
          crawlListing(rnd, relisted, relistMs, relistMs, endMs, false, emit);
        }
      }
    }
  }

  out.sort((a, b) => a.ms - b.ms || a.seq - b.seq);
  return { snapshots: out.map((t) => t.snapshot), goods, end: new Date(endMs).toISOString() };
}

export function generateSnapshots(options: GenerateOptions = {}): AdvertSnapshot[] {
  return generateDataset(options).snapshots;
}

/** Writes one snapshot per line; resolves with the number of lines and the end of the period. */
export async function writeSnapshotsJsonl(path: string, options: GenerateOptions = {}): Promise<{ count: number; end: string }> {
  const { snapshots, end } = generateDataset(options);
  const stream = createWriteStream(path, { encoding: 'utf8' });
  for (const snapshot of snapshots) {
    if (!stream.write(JSON.stringify(snapshot) + '\n')) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  return { count: snapshots.length, end };
}

export function makeGood(rnd: Random, goodId: string, commune: DemoCommune): Good {
  let propertyType = rnd.weighted(TYPE_WEIGHTS[sizeClassOf(commune)]);
  const transactionType: TransactionType = rnd.chance(propertyType === 0 ? 0.4 : 0.15) ? 1 : 0;
  // Plots and whole buildings are hardly ever rented out through portals.
  if (transactionType === 1 && (propertyType === 5 || propertyType === 2)) propertyType = 0;

  const paris = commune.population >= 1_000_000;
  let surface: number | null = null;
  let landSurface: number | null = null;
  let room: number | null = null;
  let bedroom: number | null = null;
  let floor: number | null = null;
  let floorQuantity: number | null = null;
  let lotCount: number | null = null;
  switch (propertyType) {
    case 0: {
      room = rnd.weighted([[1, 20], [2, 30], [3, 27], [4, 15], [5, 6], [6, 2]]);
      surface = round1((room * rnd.between(14, 21) + rnd.between(4, 12)) * (paris ? 0.85 : 1));
      bedroom = Math.max(0, room - 1);
      floorQuantity = rnd.int(2, paris ? 8 : sizeClassOf(commune) === 'city' ? 10 : 4);
      floor = rnd.int(0, floorQuantity);
      lotCount = rnd.chance(0.6) ? rnd.int(4, 120) : null;
      break;
    }
    case 1: {
      room = rnd.weighted([[3, 15], [4, 30], [5, 28], [6, 17], [7, 10]]);
      surface = round1((25 + room * rnd.between(15, 22)) * rnd.between(0.9, 1.15));
      bedroom = Math.max(1, room - rnd.int(1, 2));
      landSurface = Math.round(clamp(rnd.logNormal(sizeClassOf(commune) === 'rural' ? 1_100 : 400, 0.6), 80, 30_000));
      floorQuantity = rnd.int(1, 3);
      break;
    }
    case 2:
      surface = Math.round(clamp(rnd.logNormal(420, 0.4), 150, 3_000));
      room = rnd.int(6, 30);
      lotCount = rnd.int(2, 14);
      floorQuantity = rnd.int(2, 7);
      break;
    case 3:
      surface = Math.round(rnd.between(10, 25));
      break;
    case 4:
      surface = Math.round(clamp(rnd.logNormal(120, 0.7), 20, 3_000));
      room = rnd.chance(0.5) ? rnd.int(1, 12) : null;
      floor = rnd.int(0, 6);
      break;
    case 5:
      landSurface = Math.round(clamp(rnd.logNormal(800, 0.7), 200, 50_000));
      break;
    case 6:
      surface = Math.round(clamp(rnd.logNormal(80, 0.6), 15, 2_000));
      break;
  }

  const home = propertyType === 0 || propertyType === 1;
  const rated = propertyType !== 3 && propertyType !== 5 && rnd.chance(0.85);
  const energyLetter = rated ? rnd.weighted(ENERGY_WEIGHTS) : null;
  const ghgLetter =
    energyLetter === null
      ? null
      : (ENERGY_LETTERS[clamp(ENERGY_LETTERS.indexOf(energyLetter) + rnd.int(-1, 1), 0, 6)] ?? energyLetter);

  const pricePerMeter = basePricePerMeter(commune) * rnd.logNormal(1, 0.12) * TYPE_PRICE_FACTOR[propertyType];
  const furnished = transactionType === 1 && home ? rnd.chance(0.35) : home ? false : null;
  const price = priceOf(propertyType, transactionType, pricePerMeter, surface, landSurface, furnished === true);

  const radiusKm = clamp(Math.sqrt(commune.population) / 60, 0.8, 6);
  const angle = rnd.between(0, 2 * Math.PI);
  const distanceKm = radiusKm * Math.sqrt(rnd.float());
  const lat = commune.lat + (distanceKm / 111.2) * Math.sin(angle);
  const lon = commune.lon + (distanceKm / (111.2 * Math.cos((commune.lat * Math.PI) / 180))) * Math.cos(angle);

  const featureCount = home ? rnd.int(0, 5) : rnd.int(0, 2);
  const features: string[] = [];
  for (let i = 0; i < featureCount; i++) {
    const f = rnd.pick(FEATURES);
    if (!features.includes(f)) features.push(f);
  }

  return {
    goodId,
    commune,
    transactionType,
    propertyType,
    surface,
    landSurface,
    room,
    bedroom,
    floor,
    floorQuantity,
    lotCount,
    constructionYear: home && rnd.chance(0.6) ? constructionYearOf(rnd) : null,
    elevator: propertyType === 0 && floorQuantity !== null ? rnd.chance(floorQuantity >= 5 ? 0.85 : 0.25) : null,
    furnished,
    energy: energyLetter ? { category: energyLetter, value: rnd.int(...ENERGY_BANDS[energyLetter]) } : null,
    greenHouseGas: ghgLetter ? { category: ghgLetter, value: rnd.int(...GHG_BANDS[ghgLetter]) } : null,
    features,
    price,
    lat: round6(lat),
    lon: round6(lon),
  };
}

function priceOf(
  propertyType: PropertyType,
  transactionType: TransactionType,
  pricePerMeter: number,
  surface: number | null,
  landSurface: number | null,
  furnished: boolean,
): number {
  if (transactionType === 1) {
    const monthly =
      propertyType === 3
        ? 30 + pricePerMeter / 100
        : (surface ?? 20) * (pricePerMeter / 250) * (furnished ? 1.15 : 1);
    return roundPrice(monthly, 1);
  }
  if (propertyType === 3) return roundPrice((surface ?? 12) * pricePerMeter * 0.2, 0);
  if (propertyType === 5) return roundPrice((landSurface ?? 500) * pricePerMeter * 0.06, 0);
  return roundPrice((surface ?? 50) * pricePerMeter, 0);
}

function constructionYearOf(rnd: Random): number {
  const [from, to] = rnd.weighted<readonly [number, number]>([
    [[1850, 1914], 15],
    [[1915, 1948], 10],
    [[1949, 1974], 25],
    [[1975, 2000], 27],
    [[2001, 2012], 15],
    [[2013, 2025], 8],
  ]);
  return rnd.int(from, to);
}

export function pickPublisher(rnd: Random, site: SiteProfile, commune: DemoCommune, agencies: Map<string, Publisher[]>): Publisher {
  if (site.acceptsIndividuals && rnd.chance(site.category === 'classifieds' ? 0.55 : 0.2)) {
    return {
      name: 'Particulier (synthetic)',
      category: 'individual',
      type: 0,
      slug: 'particulier',
      phone: `06 39 98 ${twoDigits(rnd.int(0, 99))} ${twoDigits(rnd.int(0, 99))}`,
    };
  }
  let pool = agencies.get(commune.insee);
  if (pool === undefined) {
    pool = [];
    const count = commune.population >= 100_000 ? 6 : 3;
    for (let i = 0; i < count; i++) {
      const word = AGENCY_WORDS[(i + commune.insee.charCodeAt(4)) % AGENCY_WORDS.length] ?? 'Habitat';
      const name = `Synthetic ${word} ${commune.name} ${i + 1}`;
      pool.push({
        name,
        category: i % 3 === 2 ? 'network' : 'agency',
        type: 1,
        slug: `${word}-${commune.insee}-${i + 1}`.toLowerCase().replace(/[^a-z0-9-]/g, ''),
        phone: `01 99 00 ${twoDigits(rnd.int(0, 99))} ${twoDigits(rnd.int(0, 99))}`,
      });
    }
    agencies.set(commune.insee, pool);
  }
  return rnd.pick(pool);
}

export function makeListing(
  rnd: Random,
  site: SiteProfile,
  publisher: Publisher,
  reference: string,
  good: Good,
  multi: boolean,
): Listing {
  const pro = publisher.type === 1;
  // Publishers of one good disagree slightly: fees, rounding, measurement.
  const priceSpread = multi ? 0.015 : 0;
  const surfaceSpread = multi ? 0.01 : 0;
  const pictureCount = rnd.int(pro ? 4 : 1, pro ? 12 : 6);
  const host = `img.${site.site}.example`;
  const pictures: string[] = [];
  const picturesRemote: string[] = [];
  for (let i = 1; i <= pictureCount; i++) {
    pictures.push(`https://${host}/${reference}/${i}.jpg`);
    picturesRemote.push(`https://photos.${publisher.slug}.example/${reference}-${i}.jpg`);
  }
  // Coordinates geocoded by each site land a few tens of metres apart.
  const jitter = multi ? 0.0004 : 0;
  return {
    site,
    publisher,
    reference,
    good,
    price: roundPrice(good.price * (1 + rnd.between(-priceSpread, priceSpread)), good.transactionType),
    surface: good.surface === null ? null : round1(good.surface * (1 + rnd.between(-surfaceSpread, surfaceSpread))),
    room: !pro && multi && rnd.chance(0.1) ? null : good.room,
    pictures,
    picturesRemote,
    located: rnd.chance(pro ? 0.9 : 0.75),
    lat: round6(good.lat + rnd.between(-jitter, jitter)),
    lon: round6(good.lon + rnd.between(-jitter, jitter)),
    virtualTour: pro && rnd.chance(0.12) ? `https://visite.${site.site}.example/${reference}` : null,
    expiredAt: null,
    feesPercentage: pro && good.transactionType === 0 && rnd.chance(0.7) ? round2(rnd.between(3, 7)) : null,
  };
}

/**
 * Emits the crawls of one listing from `fromMs`, applying its life events, and returns the
 * expiry time when the listing expired within the period.
 */
function crawlListing(
  rnd: Random,
  listing: Listing,
  fromMs: number,
  changesFromMs: number,
  endMs: number,
  multi: boolean,
  emit: (ms: number, snapshot: AdvertSnapshot) => void,
): number | null {
  const [minEvery, maxEvery] = listing.site.crawlEveryDays;
  const expires = rnd.chance(0.6);
  const lifeMs = clamp(rnd.logNormal(45, 0.6), 7, 200) * DAY_MS;
  const expiryMs = expires ? fromMs + lifeMs : Number.POSITIVE_INFINITY;
  const announced = expires && rnd.chance(0.3);
  if (announced) listing.expiredAt = new Date(Math.floor(expiryMs / 1000) * 1000).toISOString();

  // Planned changes, each at a random moment of the life (after `changesFromMs`).
  const lifeEndMs = Math.min(expiryMs, endMs);
  const windowStartMs = Math.max(changesFromMs, fromMs) + DAY_MS;
  const changeWindow = (): number =>
    windowStartMs < lifeEndMs ? rnd.between(windowStartMs, lifeEndMs) : Number.POSITIVE_INFINITY;
  const drops: { atMs: number; factor: number }[] = [];
  if (rnd.chance(0.35)) {
    const count = multi ? 1 : rnd.int(1, 2);
    for (let i = 0; i < count; i++) drops.push({ atMs: changeWindow(), factor: 1 - rnd.between(0.02, 0.05) });
  }
  let surfaceFixAtMs = listing.surface !== null && rnd.chance(0.06) ? changeWindow() : null;
  let newPicturesAtMs = rnd.chance(0.2) ? changeWindow() : null;

  let ms = fromMs + rnd.between(0, 6) * 3_600_000;
  while (ms < endMs) {
    for (const drop of drops) {
      if (drop.atMs <= ms && drop.factor !== 1) {
        listing.price = roundPrice(listing.price * drop.factor, listing.good.transactionType);
        drop.factor = 1;
      }
    }
    if (surfaceFixAtMs !== null && surfaceFixAtMs <= ms && listing.surface !== null) {
      // Carrez re-measurement: a square metre or so either way.
      listing.surface = round1(Math.max(8, listing.surface + (rnd.chance(0.5) ? -1 : 1) * rnd.between(0.5, 1.5)));
      surfaceFixAtMs = null;
    }
    if (newPicturesAtMs !== null && newPicturesAtMs <= ms) {
      newPicturesAtMs = null;
      const extra = rnd.int(1, 3);
      const n = listing.pictures.length;
      for (let i = 1; i <= extra; i++) {
        listing.pictures.push(`https://img.${listing.site.site}.example/${listing.reference}/${n + i}.jpg`);
        listing.picturesRemote.push(`https://photos.${listing.publisher.slug}.example/${listing.reference}-${n + i}.jpg`);
      }
    }

    const withdrawn = ms >= expiryMs;
    emit(ms, snapshotOf(listing, ms, withdrawn && !announced));
    if (withdrawn) return expiryMs;
    ms += rnd.between(minEvery, maxEvery) * DAY_MS;
  }
  return null;
}

export function snapshotOf(listing: Listing, ms: number, withdrawn: boolean): AdvertSnapshot {
  const { good, publisher, site } = listing;
  const pro = publisher.type === 1;
  const rent = good.transactionType === 1;
  const label = PROPERTY_TYPE_LABELS[good.propertyType];
  const size = listing.surface ?? good.landSurface;
  const title = [
    rent ? `Location ${label.toLowerCase()}` : label,
    listing.room !== null && (good.propertyType === 0 || good.propertyType === 1) ? piecesOf(listing.room) : null,
    size !== null ? `${size} m²` : null,
    `- ${good.commune.name}`,
  ]
    .filter((part) => part !== null)
    .join(' ');
  const fees = listing.feesPercentage;
  const surface = listing.surface;
  return {
    site: site.site,
    siteCategory: site.category,
    url: `https://${site.site}.example/annonces/${listing.reference}`,
    reference: listing.reference,
    publisher: { name: publisher.name, category: publisher.category, type: publisher.type },
    title,
    description:
      `Annonce fictive (données synthétiques de démonstration). ${label} à ${good.commune.name}` +
      (listing.room !== null ? `, ${piecesOf(listing.room)}` : '') +
      (surface !== null ? `, ${surface} m²` : '') +
      (good.features.length > 0 ? `. Atouts : ${good.features.join(', ')}.` : '.'),
    price: listing.price,
    priceExcludingFees: !rent && fees !== null ? Math.round(listing.price / (1 + fees / 100)) : null,
    feesPercentage: !rent ? fees : null,
    feesResponsibility: !rent && pro ? (fees !== null ? 1 : 0) : null,
    condominiumFees: good.propertyType === 0 && surface !== null ? Math.round(surface * 32) : null,
    rentalCharges: rent && surface !== null ? Math.round(surface * 2.5) : null,
    rentalPledge: rent ? Math.round(listing.price * (good.furnished ? 2 : 1)) : null,
    renterFees: rent && pro && surface !== null ? Math.round(surface * 10) : null,
    inventoryPrice: rent && pro && surface !== null ? Math.round(surface * 3) : null,
    surface,
    landSurface: good.landSurface,
    room: listing.room,
    bedroom: listing.room !== null ? good.bedroom : null,
    floor: good.floor,
    floorQuantity: good.floorQuantity,
    lotCount: good.lotCount,
    constructionYear: good.constructionYear,
    elevator: good.elevator,
    furnished: good.furnished,
    energy: good.energy,
    greenHouseGas: good.greenHouseGas,
    features: good.features.slice(),
    pictures: listing.pictures.slice(),
    picturesRemote: listing.picturesRemote.slice(),
    virtualTour: listing.virtualTour,
    contact: pro
      ? {
          agency: publisher.name,
          email: `contact@${publisher.slug}.example`,
          fax: null,
          name: `${FIRST_NAMES[listing.reference.length % FIRST_NAMES.length] ?? 'Camille'} Exemple`,
          phone: publisher.phone,
          reference: listing.reference,
        }
      : { agency: null, email: null, fax: null, name: 'Particulier', phone: publisher.phone, reference: null },
    propertyType: good.propertyType,
    transactionType: good.transactionType,
    // Agencies geocode the address (house number); individuals give a neighbourhood.
    location: listing.located ? { lat: listing.lat, lon: listing.lon, accuracy: pro ? 1 : 2 } : null,
    commune: { insee: good.commune.insee, zipcode: good.commune.zipcode, name: good.commune.name },
    expiredAt: listing.expiredAt,
    expired: withdrawn,
    seenAt: new Date(Math.floor(ms / 1000) * 1000).toISOString(),
  };
}

export function roundPrice(value: number, transactionType: TransactionType): number {
  if (transactionType === 1) return Math.max(10, Math.round(value / 5) * 5);
  const step = value < 100_000 ? 500 : 1_000;
  return Math.max(1_000, Math.round(value / step) * step);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function piecesOf(room: number): string {
  return room > 1 ? `${room} pièces` : `${room} pièce`;
}

function twoDigits(n: number): string {
  return String(n).padStart(2, '0');
}
