/**
 * Points of interest around a location (`/indicators/points_of_interest`).
 *
 * SYNTHETIC DATA. No offline source of real schools, crèches, restaurants, hospitals or car parks
 * ships with the service, so by default every POI returned is produced by a seeded, deterministic
 * generator: plausible counts and positions, invented names. They must not be presented to end
 * users as real places. An operator who has a real extract (GeoJSON or CSV, formats below) points
 * the service at it and the generator is not used at all (see {@link createPoiSource}).
 *
 * Generator model (per commune, generated lazily on first query near it, then cached):
 * - seed: FNV-1a hash of `<seed>:<INSEE>:<facility>`, so a commune's POIs are the same on every
 *   machine and run, and one facility's POIs do not depend on which others were requested;
 * - expected counts scale with population: schools 1 per 1,100 inhabitants, kindergartens (crèches)
 *   1 per 2,500, restaurants 1 per 350, hospitals and clinics 1 per 25,000, car parks 1 per 3,000
 *   plus one in any commune above 2,000; the fractional part is a coin flip, so small villages
 *   sometimes have a school and usually no hospital;
 * - school types follow commune size: villages get maternelle/élémentaire/primaire only, towns
 *   add collèges and lycées, cities a few `secondaire` (cités scolaires). Private share: 13 % for
 *   primary schools, 22 % for collèges, 30 % for lycées; `operatorType` is left out for 3 % of schools
 *   and `schoolType` for 1 %, as the spec says either key may be absent;
 * - `name` is null for some POIs (15 % of restaurants, 40 % of car parks, 10 % of crèches, 3 % of
 *   schools), as in the real feed; `attributes` is `[]` for everything but schools;
 * - positions: around the commune's point, denser at the centre, spread over its extent (capped at
 *   {@link MAX_SPREAD_KM} from the centre, since facilities cluster in the built-up area) or, without
 *   an extent, over a disc sized from population. Communes grouping arrondissements generate nothing
 *   themselves: their arrondissements do.
 *
 * A query only generates POIs for communes whose spread box touches the query box (coarse grid),
 * then reads POIs through a fine per-facility grid (~1 km cells): a warm 1 km query in central
 * Paris takes about a millisecond.
 * The radius is capped at {@link MAX_POI_RADIUS_KM}: beyond that the answer stops being "nearby"
 * and its size (thousands of restaurants around central Paris) stops being useful.
 *
 * Extract formats (one row / feature per POI, WGS84):
 * - GeoJSON: a FeatureCollection of Point features; `properties.type` (or `facility`) is one of
 *   {@link POI_FACILITIES}; optional `name`, and for schools optional `schoolType`, `operatorType`.
 * - CSV: UTF-8, header row, comma or semicolon separated, double-quoted fields allowed; columns
 *   `lat`, `lon`, `type` required, `name`, `schoolType`, `operatorType` optional, any order.
 * Rows that do not make a valid POI are skipped and counted in `skipped`.
 */
import { readFileSync } from 'node:fs';
import { mulberry32 } from '@immo/runtime';
import { type CityDirectory, type CityEntry, getCityDirectory } from './city-directory';
import { GeoValidationError } from './domain-errors';
import { type BBox, type LatLon, bboxAround, haversineKm, isValidLatLon, kmToLatDegrees, kmToLonDegrees } from './geo-math';
import { SpatialGrid } from './spatial-grid';

export const POI_FACILITIES = ['kindergarten', 'school', 'restaurant', 'hospital', 'parking'] as const;
export type PoiFacility = (typeof POI_FACILITIES)[number];

export const SCHOOL_TYPES = ['maternelle', 'élémentaire', 'primaire', 'collège', 'lycée', 'secondaire'] as const;
export type SchoolType = (typeof SCHOOL_TYPES)[number];
export const OPERATOR_TYPES = ['public', 'private'] as const;
export type OperatorType = (typeof OPERATOR_TYPES)[number];

export interface SchoolAttributes {
  schoolType?: SchoolType;
  operatorType?: OperatorType;
}

export interface PointOfInterest {
  lat: number;
  lon: number;
  name: string | null;
  type: PoiFacility;
  /** School attributes, or an empty array for every other category (as the API shows it). */
  attributes: SchoolAttributes | [];
}

export interface PoiQuery {
  lat: number;
  lon: number;
  radiusKm: number;
  facilities: ReadonlyArray<string>;
}

export interface PoiSource {
  readonly kind: 'synthetic' | 'extract';
  readonly description: string;
  poisWithin(query: PoiQuery): PointOfInterest[];
}

/** Largest accepted search radius, in kilometres. */
export const MAX_POI_RADIUS_KM = 10;
/** Farthest a generated POI is placed from its commune's point. */
export const MAX_SPREAD_KM = 8;
/** Environment variable naming an operator-supplied extract (see {@link poiSourceFromEnv}). */
export const POI_EXTRACT_ENV = 'GEO_POI_EXTRACT_PATH';

const FACILITY_SET: ReadonlySet<string> = new Set(POI_FACILITIES);

export function isPoiFacility(value: string): value is PoiFacility {
  return FACILITY_SET.has(value);
}

/** Checks a query as received and returns it with facilities deduplicated and typed. */
export function validatePoiQuery(query: PoiQuery): { centre: LatLon; radiusKm: number; facilities: PoiFacility[] } {
  const lat = Number(query.lat);
  const lon = Number(query.lon);
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw new GeoValidationError('lat', 'must be a number within [-90, 90]');
  if (!Number.isFinite(lon) || lon < -180 || lon > 180) throw new GeoValidationError('lon', 'must be a number within [-180, 180]');
  const radiusKm = Number(query.radiusKm);
  if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > MAX_POI_RADIUS_KM) {
    throw new GeoValidationError('radius', `must be a number of kilometres greater than 0 and at most ${MAX_POI_RADIUS_KM}`);
  }
  if (!Array.isArray(query.facilities) || query.facilities.length === 0) {
    throw new GeoValidationError('facilities', `must list at least one of ${POI_FACILITIES.join(', ')}`);
  }
  const facilities: PoiFacility[] = [];
  for (const [index, facility] of query.facilities.entries()) {
    if (typeof facility !== 'string' || !isPoiFacility(facility)) {
      throw new GeoValidationError(`facilities[${index}]`, `must be one of ${POI_FACILITIES.join(', ')}`);
    }
    if (!facilities.includes(facility)) facilities.push(facility);
  }
  return { centre: { lat, lon }, radiusKm, facilities };
}

/** Collects POIs within the radius and returns copies, nearest first (ties: type, then name). */
class NearbyCollector {
  private readonly hits: Array<{ poi: PointOfInterest; distanceKm: number }> = [];

  constructor(
    private readonly centre: LatLon,
    private readonly radiusKm: number,
  ) {}

  offer(poi: PointOfInterest): void {
    const distanceKm = haversineKm(this.centre, poi);
    if (distanceKm <= this.radiusKm) this.hits.push({ poi, distanceKm });
  }

  sorted(): PointOfInterest[] {
    return this.hits
      .sort((a, b) => a.distanceKm - b.distanceKm || compareText(a.poi.type, b.poi.type) || compareText(a.poi.name ?? '', b.poi.name ?? ''))
      .map((hit) => copyPoi(hit.poi));
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// --- deterministic randomness ----------------------------------------------------------------

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Mulberry32 (contracts): good enough to scatter points; not for anything secret. */
export const seededRandom = mulberry32;

function pick<T>(random: () => number, items: ReadonlyArray<T>): T {
  return items[Math.floor(random() * items.length)] as T;
}

function weighted<T>(random: () => number, items: ReadonlyArray<readonly [T, number]>): T {
  const total = items.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [item, weight] of items) {
    roll -= weight;
    if (roll < 0) return item;
  }
  return (items[items.length - 1] as readonly [T, number])[0];
}

// --- synthetic generator ----------------------------------------------------------------------

const INHABITANTS_PER: Readonly<Record<PoiFacility, number>> = {
  school: 1100,
  kindergarten: 2500,
  restaurant: 350,
  hospital: 25000,
  parking: 3000,
};

const NULL_NAME_SHARE: Readonly<Record<PoiFacility, number>> = {
  school: 0.03,
  kindergarten: 0.1,
  restaurant: 0.15,
  hospital: 0,
  parking: 0.4,
};

const PRIVATE_SHARE: Readonly<Record<SchoolType, number>> = {
  maternelle: 0.13,
  élémentaire: 0.13,
  primaire: 0.13,
  collège: 0.22,
  lycée: 0.3,
  secondaire: 0.3,
};

function schoolTypeWeights(population: number): ReadonlyArray<readonly [SchoolType, number]> {
  if (population < 2000) return [['maternelle', 0.2], ['élémentaire', 0.2], ['primaire', 0.6]];
  if (population < 10000) {
    return [['maternelle', 0.3], ['élémentaire', 0.3], ['primaire', 0.2], ['collège', 0.15], ['lycée', 0.05]];
  }
  return [['maternelle', 0.3], ['élémentaire', 0.3], ['primaire', 0.12], ['collège', 0.15], ['lycée', 0.11], ['secondaire', 0.02]];
}

const PUBLIC_SCHOOL_NAMES = [
  'Jules Ferry', 'Jean Jaurès', 'Victor Hugo', 'Jean Moulin', 'Louis Pasteur', 'Marie Curie', 'Jacques Prévert',
  'Paul Bert', 'Condorcet', 'Voltaire', 'Jean de La Fontaine', 'Anatole France', 'Simone Veil', 'Albert Camus',
  'Paul Langevin', 'Louise Michel', 'Jean Macé', 'Joliot-Curie', 'Les Tilleuls', 'Les Marronniers', 'du Centre',
  'des Prés', 'Antoine de Saint-Exupéry', 'Molière', 'Jean Rostand', 'Charles Péguy', 'George Sand', 'Pablo Picasso',
] as const;
const PRIVATE_SCHOOL_NAMES = [
  'Saint-Joseph', 'Notre-Dame', 'Sainte-Marie', "Jeanne d'Arc", 'Saint-Michel', 'Sainte-Thérèse', 'La Salle', 'Saint-Louis',
  'Sainte-Anne', 'Immaculée-Conception', 'Saint-Exupéry', 'Sacré-Cœur',
] as const;
const SCHOOL_PREFIX: Readonly<Record<SchoolType, string>> = {
  maternelle: 'École maternelle',
  élémentaire: 'École élémentaire',
  primaire: 'École primaire',
  collège: 'Collège',
  lycée: 'Lycée',
  secondaire: 'Cité scolaire',
};
const KINDERGARTEN_PREFIXES = ['Crèche', 'Multi-accueil', 'Micro-crèche', 'Crèche parentale', 'Halte-garderie'] as const;
const KINDERGARTEN_NAMES = [
  'Les Petits Loups', 'Les Lutins', 'Les Câlins', 'Les Petits Princes', 'Pirouette', 'Les Bambins', 'Les Coccinelles',
  'Les Dauphins', 'Les P’tits Mômes', 'Arc-en-ciel', 'Les Oursons', 'Les Frimousses',
] as const;
const RESTAURANT_NAMES = [
  'Le Petit Bistrot', 'Le Comptoir', 'La Table du Marché', 'Brasserie de la Place', 'Le Relais', "L'Auberge", 'Le Bouchon',
  'Pizzeria Da Marco', 'Le Jardin', 'Les Halles', 'Le Café du Commerce', 'La Cantine', 'Sushi Zen', 'Le Grill',
  'Crêperie Ty Breizh', 'Le Saint-Jean', 'La Belle Époque', 'Chez Paulette', 'Chez Léon', 'Le Bistrot des Amis',
  'Restaurant du Centre', 'Le Fournil', 'La Cour', 'Le Canon', 'Le Bon Coin', 'Au Vieux Logis', 'Le Tourne-Broche',
  'Le Wok', 'Trattoria Roma', 'Le Zinc', 'La Petite Cuisine', 'Le Soleil', "L'Escale", 'Le Bistro Gourmand',
] as const;
const HOSPITAL_PATTERNS = ['Centre hospitalier de {city}', 'Clinique {name}', 'Hôpital {name}', 'Polyclinique de {city}'] as const;
const HOSPITAL_NAMES = ['Saint-Joseph', 'Sainte-Anne', 'du Parc', 'des Cèdres', 'Pasteur', 'Saint-Vincent', 'de la Roseraie', 'Jean Rostand'] as const;
const PARKING_NAMES = [
  'Parking de la Gare', 'Parking du Centre', 'Parking de la Mairie', 'Parking du Marché', 'Parking des Halles',
  "Parking de l'Église", 'Parking Relais', 'Parking de la Poste', 'Parking du Château', 'Parking Hôtel de Ville',
] as const;

function schoolName(random: () => number, type: SchoolType | undefined, operator: OperatorType | undefined): string {
  const prefix = type ? SCHOOL_PREFIX[type] : 'École';
  return `${prefix} ${operator === 'private' ? pick(random, PRIVATE_SCHOOL_NAMES) : pick(random, PUBLIC_SCHOOL_NAMES)}`;
}

function facilityName(random: () => number, facility: Exclude<PoiFacility, 'school'>, cityName: string): string {
  switch (facility) {
    case 'kindergarten':
      return `${pick(random, KINDERGARTEN_PREFIXES)} ${pick(random, KINDERGARTEN_NAMES)}`;
    case 'restaurant':
      return pick(random, RESTAURANT_NAMES);
    case 'hospital':
      return pick(random, HOSPITAL_PATTERNS).replace('{city}', cityName).replace('{name}', pick(random, HOSPITAL_NAMES));
    case 'parking':
      return pick(random, PARKING_NAMES);
  }
}

interface Spread {
  centre: LatLon;
  /** Half extents in degrees. */
  halfLat: number;
  halfLon: number;
  /** Disc sampling (no known extent) rather than box sampling. */
  disc: boolean;
}

// Arrondissements are dense city districts; other communes without an extent are assumed to be towns.
const ASSUMED_DENSITY_PER_KM2 = { arrondissement: 20000, commune: 1000 } as const;

function spreadOf(entry: CityEntry): Spread | null {
  const centre = entry.city.locations;
  if (!centre) return null;
  const bbox = entry.record.bbox;
  if (bbox) {
    const capLat = kmToLatDegrees(MAX_SPREAD_KM);
    const capLon = kmToLonDegrees(MAX_SPREAD_KM, centre.lat);
    return {
      centre,
      halfLat: Math.min(capLat, Math.max(centre.lat - bbox[1], bbox[3] - centre.lat)),
      halfLon: Math.min(capLon, Math.max(centre.lon - bbox[0], bbox[2] - centre.lon)),
      disc: false,
    };
  }
  const density = ASSUMED_DENSITY_PER_KM2[entry.record.kind];
  const radiusKm = Math.min(MAX_SPREAD_KM, Math.max(0.5, Math.sqrt(Math.max(entry.record.population, 500) / density / Math.PI)));
  return { centre, halfLat: kmToLatDegrees(radiusKm), halfLon: kmToLonDegrees(radiusKm, centre.lat), disc: true };
}

function spreadBox(spread: Spread): BBox {
  return [spread.centre.lon - spread.halfLon, spread.centre.lat - spread.halfLat, spread.centre.lon + spread.halfLon, spread.centre.lat + spread.halfLat];
}

function placePoint(random: () => number, spread: Spread): LatLon {
  if (spread.disc) {
    // Exponent above 0.5 (uniform) pulls points toward the centre, like a town's facilities.
    const distance = Math.pow(random(), 0.75);
    const angle = random() * 2 * Math.PI;
    return { lat: spread.centre.lat + distance * spread.halfLat * Math.sin(angle), lon: spread.centre.lon + distance * spread.halfLon * Math.cos(angle) };
  }
  // Sum of two uniforms: triangular, densest at the centre, never outside the box.
  const dy = random() + random() - 1;
  const dx = random() + random() - 1;
  return { lat: spread.centre.lat + dy * spread.halfLat, lon: spread.centre.lon + dx * spread.halfLon };
}

function roundCoordinate(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Synthetic POIs of one facility for one commune; pure function of (seed, commune, facility). */
export function generateCommunePois(entry: CityEntry, facility: PoiFacility, seed = 0): PointOfInterest[] {
  const spread = spreadOf(entry);
  if (!spread || entry.children.length > 0) return [];
  const random = seededRandom(fnv1a(`${seed}:${entry.city.insee}:${facility}`));
  const population = entry.record.population;
  const expected = population / INHABITANTS_PER[facility] + (facility === 'parking' && population > 2000 ? 1 : 0);
  const count = Math.floor(expected) + (random() < expected % 1 ? 1 : 0);
  const pois: PointOfInterest[] = [];
  for (let i = 0; i < count; i++) {
    const point = placePoint(random, spread);
    const unnamed = random() < NULL_NAME_SHARE[facility];
    let attributes: SchoolAttributes | [] = [];
    let name: string;
    if (facility === 'school') {
      const schoolType = weighted(random, schoolTypeWeights(population));
      const operatorType: OperatorType = random() < PRIVATE_SHARE[schoolType] ? 'private' : 'public';
      const school: SchoolAttributes = {};
      if (random() >= 0.01) school.schoolType = schoolType;
      if (random() >= 0.03) school.operatorType = operatorType;
      attributes = school;
      name = schoolName(random, school.schoolType, operatorType);
    } else {
      name = facilityName(random, facility, entry.city.originalName);
    }
    pois.push({ lat: roundCoordinate(point.lat), lon: roundCoordinate(point.lon), name: unnamed ? null : name, type: facility, attributes });
  }
  return pois;
}

export interface SyntheticPoiOptions {
  /** Changes every generated POI at once; 0 is the documented default. */
  seed?: number;
}

export function createSyntheticPoiSource(directory: CityDirectory, options: SyntheticPoiOptions = {}): PoiSource {
  const seed = options.seed ?? 0;
  // Coarse grid of commune spread boxes: which communes can have POIs in the query area.
  const communeGrid = new SpatialGrid(0.1);
  for (const entry of directory.entries) {
    if (entry.children.length > 0) continue;
    const spread = spreadOf(entry);
    if (spread) communeGrid.insertBox(entry.index, spreadBox(spread));
  }
  // Fine grid per facility over the POIs generated so far (~1 km cells), so a query reads only
  // POIs near it instead of every POI of every candidate commune.
  const stores = new Map<PoiFacility, { pois: PointOfInterest[]; grid: SpatialGrid; generated: Set<number> }>(
    POI_FACILITIES.map((facility) => [facility, { pois: [], grid: new SpatialGrid(0.01), generated: new Set<number>() }]),
  );
  return {
    kind: 'synthetic',
    description: `synthetic POIs (seed ${seed}); not real places`,
    poisWithin(query: PoiQuery): PointOfInterest[] {
      const { centre, radiusKm, facilities } = validatePoiQuery(query);
      const box = bboxAround(centre, radiusKm);
      const communes = communeGrid.queryBox(box);
      const collector = new NearbyCollector(centre, radiusKm);
      for (const facility of facilities) {
        const store = stores.get(facility);
        if (!store) continue;
        for (const index of communes) {
          if (store.generated.has(index)) continue;
          store.generated.add(index);
          const entry = directory.entries[index];
          if (!entry) continue;
          for (const poi of generateCommunePois(entry, facility, seed)) {
            store.grid.insertPoint(store.pois.length, poi);
            store.pois.push(poi);
          }
        }
        for (const id of store.grid.queryBox(box)) {
          const poi = store.pois[id];
          if (poi) collector.offer(poi);
        }
      }
      return collector.sorted();
    },
  };
}

function copyPoi(poi: PointOfInterest): PointOfInterest {
  return { ...poi, attributes: Array.isArray(poi.attributes) ? [] : { ...poi.attributes } };
}

// --- operator-supplied extracts ---------------------------------------------------------------

export interface ExtractPoiSource extends PoiSource {
  readonly loaded: number;
  readonly skipped: number;
}

interface RawPoiFields {
  lat: unknown;
  lon: unknown;
  type: unknown;
  name?: unknown;
  schoolType?: unknown;
  operatorType?: unknown;
}

function poiFromFields(fields: RawPoiFields): PointOfInterest | null {
  const lat = typeof fields.lat === 'string' ? Number(fields.lat.replace(',', '.')) : Number(fields.lat);
  const lon = typeof fields.lon === 'string' ? Number(fields.lon.replace(',', '.')) : Number(fields.lon);
  const type = typeof fields.type === 'string' ? fields.type.trim().toLowerCase() : '';
  if (!isValidLatLon(lat, lon) || !isPoiFacility(type)) return null;
  const name = typeof fields.name === 'string' && fields.name.trim().length > 0 ? fields.name.trim() : null;
  if (type !== 'school') return { lat, lon, name, type, attributes: [] };
  const attributes: SchoolAttributes = {};
  const schoolType = typeof fields.schoolType === 'string' ? fields.schoolType.trim().toLowerCase() : '';
  const operatorType = typeof fields.operatorType === 'string' ? fields.operatorType.trim().toLowerCase() : '';
  if ((SCHOOL_TYPES as ReadonlyArray<string>).includes(schoolType)) attributes.schoolType = schoolType as SchoolType;
  if ((OPERATOR_TYPES as ReadonlyArray<string>).includes(operatorType)) attributes.operatorType = operatorType as OperatorType;
  return { lat, lon, name, type, attributes };
}

function extractSource(pois: PointOfInterest[], skipped: number, origin: string): ExtractPoiSource {
  const grid = new SpatialGrid(0.05);
  pois.forEach((poi, index) => grid.insertPoint(index, poi));
  return {
    kind: 'extract',
    description: `extract ${origin} (${pois.length} POIs, ${skipped} rows skipped)`,
    loaded: pois.length,
    skipped,
    poisWithin(query: PoiQuery): PointOfInterest[] {
      const { centre, radiusKm, facilities } = validatePoiQuery(query);
      const wanted = new Set<string>(facilities);
      const collector = new NearbyCollector(centre, radiusKm);
      for (const index of grid.queryBox(bboxAround(centre, radiusKm))) {
        const poi = pois[index];
        if (poi && wanted.has(poi.type)) collector.offer(poi);
      }
      return collector.sorted();
    },
  };
}

export function parsePoiGeoJson(text: string, origin = 'GeoJSON'): ExtractPoiSource {
  const document = JSON.parse(text) as { type?: unknown; features?: unknown };
  if (document.type !== 'FeatureCollection' || !Array.isArray(document.features)) {
    throw new Error(`${origin}: expected a GeoJSON FeatureCollection`);
  }
  const pois: PointOfInterest[] = [];
  let skipped = 0;
  for (const feature of document.features as Array<{ geometry?: { type?: unknown; coordinates?: unknown }; properties?: Record<string, unknown> | null }>) {
    const coordinates = feature?.geometry?.type === 'Point' && Array.isArray(feature.geometry.coordinates) ? feature.geometry.coordinates : null;
    const properties = feature?.properties ?? {};
    const poi = coordinates
      ? poiFromFields({
          lon: coordinates[0],
          lat: coordinates[1],
          type: properties['type'] ?? properties['facility'],
          name: properties['name'],
          schoolType: properties['schoolType'],
          operatorType: properties['operatorType'],
        })
      : null;
    if (poi) pois.push(poi);
    else skipped++;
  }
  return extractSource(pois, skipped, origin);
}

/** Splits one CSV line; handles quoted fields and doubled quotes, not line breaks inside quotes. */
function splitCsvLine(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      fields.push(current);
      current = '';
    } else current += char;
  }
  fields.push(current);
  return fields;
}

export function parsePoiCsv(text: string, origin = 'CSV'): ExtractPoiSource {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.trim().length > 0);
  const header = lines[0];
  if (header === undefined) throw new Error(`${origin}: empty file`);
  const delimiter = (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',';
  const columns = splitCsvLine(header, delimiter).map((column) => column.trim());
  const position = (name: string): number => columns.findIndex((column) => column.toLowerCase() === name.toLowerCase());
  const at = { lat: position('lat'), lon: position('lon'), type: position('type'), name: position('name'), schoolType: position('schoolType'), operatorType: position('operatorType') };
  if (at.lat < 0 || at.lon < 0 || at.type < 0) throw new Error(`${origin}: header must name the columns lat, lon and type`);
  const pois: PointOfInterest[] = [];
  let skipped = 0;
  for (const line of lines.slice(1)) {
    const fields = splitCsvLine(line, delimiter);
    const field = (index: number): string | undefined => (index < 0 ? undefined : fields[index]);
    const poi = poiFromFields({
      lat: field(at.lat),
      lon: field(at.lon),
      type: field(at.type),
      name: field(at.name),
      schoolType: field(at.schoolType),
      operatorType: field(at.operatorType),
    });
    if (poi) pois.push(poi);
    else skipped++;
  }
  return extractSource(pois, skipped, origin);
}

export function loadPoisFromGeoJson(path: string): ExtractPoiSource {
  return parsePoiGeoJson(readFileSync(path, 'utf8'), path);
}

export function loadPoisFromCsv(path: string): ExtractPoiSource {
  return parsePoiCsv(readFileSync(path, 'utf8'), path);
}

/**
 * The POI source to serve: the operator's extract when `extractPath` is set (format from the
 * extension: `.csv`, otherwise GeoJSON), the synthetic generator otherwise.
 */
export function createPoiSource(directory: CityDirectory, options: { extractPath?: string | null; seed?: number } = {}): PoiSource {
  const path = options.extractPath?.trim();
  if (path) return path.toLowerCase().endsWith('.csv') ? loadPoisFromCsv(path) : loadPoisFromGeoJson(path);
  return createSyntheticPoiSource(directory, options.seed === undefined ? {} : { seed: options.seed });
}

/** {@link createPoiSource} configured from {@link POI_EXTRACT_ENV}. */
export function poiSourceFromEnv(directory: CityDirectory, env: Readonly<Record<string, string | undefined>> = process.env): PoiSource {
  return createPoiSource(directory, { extractPath: env[POI_EXTRACT_ENV] ?? null });
}

let defaultSource: PoiSource | null = null;

/**
 * POIs near a point from the process-wide source: the extract named by {@link POI_EXTRACT_ENV} if
 * set, the synthetic generator over the shared city directory otherwise.
 */
export function poisWithin(query: PoiQuery): PointOfInterest[] {
  defaultSource ??= poiSourceFromEnv(getCityDirectory());
  return defaultSource.poisWithin(query);
}
