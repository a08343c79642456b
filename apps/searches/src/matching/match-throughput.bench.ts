/**
 * Throughput of the indexed matcher: how many changed properties per second one core can test
 * against N saved searches with `SearchMatchIndex.matching`, the reference predicate included.
 * Target: at least 5,000 changes/s against 10,000 searches, the cost per change growing
 * sublinearly with the number of searches.
 *
 * Searches and properties are drawn from the real communes (open data the geo service also
 * serves), weighted by population: both crowd into the big urban departments as real ones do,
 * while every department gets some. Searches look like saved ones: one transaction type, one or
 * two property types, a department, a few cities or a radius (1 % have no place), a budget and
 * sometimes a surface or room floor. Runs are seeded, so two runs compare.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type City, type GeoPoint, type PropertyDocument } from '@immo/contracts';
import { mulberry32 } from '@immo/runtime';
import { matches, parsePropertyCriteria, type PropertyCriteria } from '@immo/property-criteria';
import { aCity, aPropertyDocument } from '@immo/property-criteria/testing';
import type { Measurement, Scenario } from '@immo/testing';
import { SearchMatchIndex } from './search-match-index';

export interface MatchThroughput {
  searches: number;
  changesPerSecond: number;
  candidatesPerChange: number;
  microsPerChange: number;
}

/** Everything one size measured; the exported function keeps the headline figures. */
interface SizeResult extends MatchThroughput {
  samplesMs: number[];
  wallMs: number;
  matchesPerChange: number;
  lookupMicrosPerChange: number;
  buildMs: number;
  heapMiB: number;
  bruteForceChangesPerSecond: number;
  bruteForceAgreed: number;
}

const DEFAULT_SEED = 20260301;
const WARM_UP_CHANGES = 1000;
/** Distinct documents generated; longer runs cycle through them. */
const DOCUMENT_POOL = 20_000;
/** Brute-force `matches` calls for the comparison series, whatever the number of searches. */
const BRUTE_FORCE_CALLS = 2_000_000;
const MIB = 1024 * 1024;

export async function runMatchThroughputBench(options: { searches: number[]; changes: number; seed?: number }): Promise<MatchThroughput[]> {
  const results = await measureSizes(options);
  return results.map(({ searches, changesPerSecond, candidatesPerChange, microsPerChange }) => ({ searches, changesPerSecond, candidatesPerChange, microsPerChange }));
}

async function measureSizes({ searches, changes, seed = DEFAULT_SEED }: { searches: number[]; changes: number; seed?: number }): Promise<SizeResult[]> {
  const places = frenchPlaces();
  const documents = generateDocuments(places, Math.min(changes, DOCUMENT_POOL), seededRandom(seed));
  const results: SizeResult[] = [];
  for (const count of searches) {
    // The same seed for each size: the smaller sets of searches are prefixes of the larger ones.
    const criteria = generateSearches(places, count, seededRandom(seed + 1));
    results.push(measureSize(criteria, documents, changes));
    // Lets a bench runner's progress output through between sizes.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return results;
}

function measureSize(criteria: readonly PropertyCriteria[], documents: readonly PropertyDocument[], changes: number): SizeResult {
  const heapBefore = heapUsed();
  const buildStarted = performance.now();
  const index = new SearchMatchIndex<number>();
  criteria.forEach((c, n) => index.upsert(`search-${n}`, c, n));
  const buildMs = performance.now() - buildStarted;
  const heapMiB = (heapUsed() - heapBefore) / MIB;

  const documentAt = (i: number) => documents[i % documents.length] as PropertyDocument;
  for (let i = 0; i < WARM_UP_CHANGES; i++) index.matching(documentAt(i));

  const samplesMs: number[] = [];
  let matched = 0;
  const started = performance.now();
  for (let i = 0; i < changes; i++) {
    const t0 = performance.now();
    matched += index.matching(documentAt(i)).length;
    samplesMs.push(performance.now() - t0);
  }
  const wallMs = performance.now() - started;

  // The lookup alone, to tell the index's share of a change from the predicate's.
  let candidates = 0;
  const lookupStarted = performance.now();
  for (let i = 0; i < changes; i++) candidates += index.candidates(documentAt(i)).length;
  const lookupMicrosPerChange = ((performance.now() - lookupStarted) / changes) * 1000;

  // What the index saves: every search tested against the change, on a sample sized to a bounded
  // number of calls. The sample also checks the index against the brute force on realistic data.
  const bruteForceChanges = Math.max(20, Math.min(changes, Math.floor(BRUTE_FORCE_CALLS / Math.max(1, criteria.length))));
  const bruteForceFound: number[][] = [];
  const bruteStarted = performance.now();
  for (let i = 0; i < bruteForceChanges; i++) {
    const doc = documentAt(i);
    const found: number[] = [];
    criteria.forEach((c, n) => matches(c, doc) && found.push(n));
    bruteForceFound.push(found);
  }
  const bruteForceMs = performance.now() - bruteStarted;
  const bruteForceAgreed = bruteForceFound.filter((expected, i) => {
    const actual = index
      .matching(documentAt(i))
      .map((found) => found.value)
      .sort((a, b) => a - b);
    return actual.length === expected.length && actual.every((value, k) => value === expected[k]);
  }).length;

  return {
    searches: criteria.length,
    changesPerSecond: (changes / wallMs) * 1000,
    candidatesPerChange: candidates / changes,
    microsPerChange: (wallMs / changes) * 1000,
    samplesMs,
    wallMs,
    matchesPerChange: matched / changes,
    lookupMicrosPerChange,
    buildMs,
    heapMiB,
    bruteForceChangesPerSecond: (bruteForceChanges / bruteForceMs) * 1000,
    bruteForceAgreed: bruteForceAgreed / bruteForceChanges,
  };
}

/**
 * Heap in use after a full collection, so that the difference is what the index keeps rather than
 * garbage of the generation. The bench runner starts node without `--expose-gc`; setting the flag
 * at run time exposes `gc` to contexts created afterwards.
 */
function heapUsed(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

// ---------------------------------------------------------------------------------------------
// Places: current communes (the arrondissements of Paris, Lyon and Marseille in place of their
// communes, as listings are placed), each with its extent and population.
// ---------------------------------------------------------------------------------------------

interface Place {
  city: City;
  /** [west, south, east, north]. */
  box: [number, number, number, number];
  population: number;
}

interface Places {
  all: Place[];
  /** Running population totals of `all`, for draws weighted by population. */
  cumulative: number[];
  byDepartment: Map<number, Place[]>;
}

interface RawCommune {
  code: string;
  nom: string;
  type: string;
  departement: string;
  region?: string;
  commune?: string;
  codesPostaux?: string[];
  population?: number;
}

/** The geo service's ids (apps/geo reference-data.ts): the INSEE code as a number, Corsica's letters mapped above every other code. */
function cityIdOf(insee: string): number {
  const corsica = /^2([AB])(\d{3})$/i.exec(insee);
  if (corsica) return (corsica[1]?.toUpperCase() === 'A' ? 201_000 : 202_000) + Number(corsica[2]);
  return Number(insee);
}

function departmentIdOf(code: string): number {
  if (code.toUpperCase() === '2A') return 201;
  if (code.toUpperCase() === '2B') return 202;
  return Number(code);
}

function frenchPlaces(): Places {
  const communes = JSON.parse(readFileSync(require.resolve('@etalab/decoupage-administratif/data/communes.json'), 'utf8')) as RawCommune[];
  const boxes = JSON.parse(readFileSync(require.resolve('@etalab/fr-bounding-boxes/dist/communes.json'), 'utf8')) as { id: string; bbox: [number, number, number, number] }[];
  const boxOf = new Map(boxes.map((box) => [box.id.slice(box.id.lastIndexOf(':') + 1), box.bbox]));
  const divided = new Set(communes.filter((c) => c.type === 'arrondissement-municipal').map((c) => c.commune));
  const all: Place[] = [];
  for (const commune of communes) {
    const isArrondissement = commune.type === 'arrondissement-municipal';
    if (!(commune.type === 'commune-actuelle' && !divided.has(commune.code)) && !isArrondissement) continue;
    // Arrondissements have no extent of their own in the data set: their commune's stands in.
    const box = boxOf.get(isArrondissement ? (commune.commune as string) : commune.code);
    const zipcodes = commune.codesPostaux ?? [];
    if (box === undefined || zipcodes.length === 0 || !commune.population) continue;
    const centre = { lat: (box[1] + box[3]) / 2, lon: (box[0] + box[2]) / 2 };
    const region = commune.region ?? '0';
    all.push({
      box,
      population: commune.population,
      city: aCity({
        id: cityIdOf(commune.code),
        cityParentId: isArrondissement ? cityIdOf(commune.commune as string) : null,
        name: commune.nom,
        originalName: commune.nom,
        insee: commune.code,
        zipcode: zipcodes[0] as string,
        hasGroupedByName: false,
        groupedCityZipcodes: zipcodes.length > 1 ? zipcodes : [],
        department: { code: commune.departement, id: departmentIdOf(commune.departement), name: commune.departement },
        region: { code: region, id: Number(region), name: region },
        locations: centre,
      }),
    });
  }
  const cumulative: number[] = [];
  let total = 0;
  for (const place of all) cumulative.push((total += place.population));
  const byDepartment = new Map<number, Place[]>();
  for (const place of all) {
    const id = place.city.department.id;
    byDepartment.set(id, [...(byDepartment.get(id) ?? []), place]);
  }
  return { all, cumulative, byDepartment };
}

function placeByPopulation(places: Places, random: () => number): Place {
  const target = random() * (places.cumulative[places.cumulative.length - 1] as number);
  let low = 0;
  let high = places.cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((places.cumulative[middle] as number) > target) high = middle;
    else low = middle + 1;
  }
  return places.all[low] as Place;
}

/** Sale price per m² of a place: Paris and its inner ring, the Riviera, then by town size. */
function salePricePerMeter(place: Place): number {
  const department = place.city.department.id;
  if (department === 75) return 10_000;
  if (department === 92 || department === 6) return 5_500;
  return 1_400 + 450 * Math.log10(Math.max(place.population, 100) / 100);
}

/** Monthly rent per m² from the sale price (gross yields of 3.5 % in Paris to 6 % elsewhere). */
const rentPerMeter = (salePerMeter: number): number => (salePerMeter * (salePerMeter > 5000 ? 0.035 : 0.06)) / 12;

// ---------------------------------------------------------------------------------------------
// Properties and searches.
// ---------------------------------------------------------------------------------------------

/** Flats, houses, then parking, land, offices, shops and buildings. */
const PROPERTY_TYPE_SHARES: ReadonlyArray<[type: number, share: number]> = [
  [0, 0.45],
  [1, 0.38],
  [3, 0.05],
  [5, 0.05],
  [4, 0.03],
  [6, 0.02],
  [2, 0.02],
];

function generateDocuments(places: Places, count: number, random: () => number): PropertyDocument[] {
  const documents: PropertyDocument[] = [];
  for (let n = 0; n < count; n++) {
    const place = placeByPopulation(places, random);
    const transactionType = random() < 0.72 ? 0 : 1;
    const propertyType = weighted(PROPERTY_TYPE_SHARES, random);
    const land = propertyType === 5;
    const surface = land ? null : propertyType === 3 ? 12 : Math.round(propertyType === 1 ? between(random, 60, 220) : between(random, 15, 130));
    const landSurface = land || propertyType === 1 ? Math.round(between(random, 200, 3000)) : null;
    const perMeter = transactionType === 0 ? salePricePerMeter(place) : rentPerMeter(salePricePerMeter(place));
    const price = Math.round(land ? (landSurface as number) * (transactionType === 0 ? 60 : 0.3) * between(random, 0.5, 2) : (surface as number) * perMeter * between(random, 0.7, 1.4));
    const room = surface === null ? null : Math.max(1, Math.round(surface / 22));
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const [west, south, east, north] = place.box;
    const locations: GeoPoint | null = random() < 0.9 ? { lat: between(random, south, north), lon: between(random, west, east) } : null;
    documents.push(
      aPropertyDocument({
        uuid,
        transactionType,
        propertyType,
        price,
        pricePerMeter: surface === null ? null : Math.round((price / surface) * 100) / 100,
        surface,
        landSurface,
        room,
        bedroom: room === null ? null : Math.max(0, room - 1),
        city: random() < 0.98 ? place.city : null,
        locations,
      }),
    );
  }
  return documents;
}

function generateSearches(places: Places, count: number, random: () => number): PropertyCriteria[] {
  const searches: PropertyCriteria[] = [];
  for (let n = 0; n < count; n++) {
    const place = placeByPopulation(places, random);
    const query: Record<string, unknown> = {};
    const transactionType = random() < 0.7 ? 0 : 1;
    query['transactionType'] = transactionType;
    const types = random() < 0.25 ? [0, 1] : [random() < 0.85 ? (random() < 0.55 ? 0 : 1) : weighted(PROPERTY_TYPE_SHARES.slice(2), random)];
    query['propertyTypes'] = types;

    const where = random();
    if (where < 0.4) {
      query['includedDepartments'] = [`/departments/${place.city.department.id}`];
    } else if (where < 0.77) {
      // A town and up to three others of its department, as someone hesitating between them.
      const neighbours = places.byDepartment.get(place.city.department.id) ?? [place];
      const chosen = new Set<Place>([place]);
      const extra = Math.floor(random() * 4);
      for (let i = 0; i < extra; i++) chosen.add(neighbours[Math.floor(random() * neighbours.length)] as Place);
      const kind = random();
      if (kind < 0.8) query['includedCities'] = [...chosen].map((p) => `/cities/${p.city.id}`);
      else if (kind < 0.9) query['includedZipcodes'] = [...chosen].map((p) => p.city.zipcode);
      else query['includedInseeCodes'] = [...chosen].map((p) => p.city.insee);
    } else if (where < 0.99) {
      const centre = place.city.locations as GeoPoint;
      Object.assign(query, { lat: centre.lat, lon: centre.lon, radius: pick([2, 5, 10, 10, 15, 20, 30, 50], random) });
    }
    // The remaining 1 %: anywhere in France, type and budget only.

    const typicalSurface = types.includes(0) ? 60 : 110;
    const perMeter = transactionType === 0 ? salePricePerMeter(place) : rentPerMeter(salePricePerMeter(place));
    // Every search has a budget; many say only how much they can spend at most.
    const unit = transactionType === 0 ? 5000 : 50;
    const max = Math.max(unit, Math.round((typicalSurface * perMeter * between(random, 0.6, 1.6)) / unit) * unit);
    query['budgetMax'] = max;
    if (random() < 0.6) query['budgetMin'] = Math.round((max * between(random, 0.5, 0.8)) / unit) * unit;
    if (random() < 0.35) query['surfaceMin'] = Math.round(typicalSurface * between(random, 0.6, 1));
    if (random() < 0.2) query['roomMin'] = 2 + Math.floor(random() * 3);

    const parsed = parsePropertyCriteria(query);
    if (!parsed.ok) throw new Error(`generated search ${JSON.stringify(query)} is invalid: ${JSON.stringify(parsed.violations)}`);
    searches.push(parsed.criteria);
  }
  return searches;
}

const seededRandom = mulberry32;

const between = (random: () => number, low: number, high: number): number => low + random() * (high - low);
const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)] as T;

function weighted(shares: ReadonlyArray<[value: number, share: number]>, random: () => number): number {
  const total = shares.reduce((sum, [, share]) => sum + share, 0);
  let target = random() * total;
  for (const [value, share] of shares) {
    if ((target -= share) < 0) return value;
  }
  return (shares[shares.length - 1] as [number, number])[0];
}

/** `MATCH_SEARCHES=10000` (a comma-separated list) and `MATCH_CHANGES` narrow the run for a quick look. */
const SIZES = (process.env['MATCH_SEARCHES'] ?? '1000,10000,100000').split(',').map(Number);
const CHANGES = Number(process.env['MATCH_CHANGES'] ?? 10_000);

const scenario: Scenario = {
  name: 'match-throughput',
  description: `${CHANGES} property changes through SearchMatchIndex.matching against ${SIZES.join(', ')} saved searches, one core (target ≥ 5,000 changes/s at 10,000 searches, sublinear growth)`,
  run: async (): Promise<Measurement[]> =>
    (await measureSizes({ searches: SIZES, changes: CHANGES })).map((result) => ({
      label: `${result.searches} searches`,
      samplesMs: result.samplesMs,
      wallMs: result.wallMs,
      operations: result.samplesMs.length,
      notes: [
        `${result.microsPerChange.toFixed(1)} µs/change (lookup ${result.lookupMicrosPerChange.toFixed(1)})`,
        `${result.candidatesPerChange.toFixed(1)} candidates, ${result.matchesPerChange.toFixed(1)} matches/change`,
        `brute force ${result.bruteForceChangesPerSecond.toFixed(0)} changes/s${result.bruteForceAgreed === 1 ? '' : ` (DISAGREES on ${((1 - result.bruteForceAgreed) * 100).toFixed(1)} %)`}`,
        `index built in ${result.buildMs.toFixed(0)} ms, heap +${result.heapMiB.toFixed(0)} MiB`,
      ].join('; '),
    })),
};

export const benchScenarios: Scenario[] = [scenario];
