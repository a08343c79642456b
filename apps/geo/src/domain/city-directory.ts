/**
 * In-memory directory of French cities (current communes and municipal arrondissements) and
 * departments, built once from the reference data and then read-only.
 *
 * Every lookup is served from a Map or the spatial grid; only the `libelle` filter of
 * {@link CityDirectory.listCities} scans, and only over candidates the other filters left.
 *
 * `/cities` semantics implemented by `listCities`:
 * - `insee`, `zipcode`: one value or several; a city matches a postal code when it is any of its
 *   postal codes (so 75015 yields Paris 15e Arrondissement and its parent Paris; pass
 *   `excludeGroupedCities` to keep only the arrondissement).
 * - `excludeGroupedCities`: drops cities that group others under them (Paris, Lyon, Marseille).
 * - `polygon`: cities whose point lies inside; at least 3 distinct valid points, else a
 *   {@link GeoValidationError} on `polygon`.
 * - `name`: exact match on the normalised name, with or without the article ("Le Havre", "havre").
 * - `slug`: exact match on the slug of the official name (`saint-etienne`).
 * - `libelle`: the normalised label (`<name> (<zipcode>)`) contains the normalised value.
 * - `order[name]`: `asc` (default) or `desc`, on the name without article, digits compared as numbers.
 * - `department`: cities of the department with this id (`GET /departments/{id}/cities`).
 * - `page`: 1-based, {@link CITIES_PAGE_SIZE} items per page (the service-wide maximum page size).
 *
 * `/departments` semantics implemented by `listDepartments`: `code` one code or several (exact,
 * `2a` = `2A`), `name` part of the name insensitive to case, accents and punctuation; by code.
 */
import {
  buildCity,
  buildDepartment,
  cityIri,
  toCityListItem,
  toCityParentRef,
  toCityResource,
  toDepartmentResource,
  articleOf,
  nameWithoutArticle,
  type City,
  type CityListItem,
  type CityResource,
  type Department,
  type DepartmentResource,
} from './city-model';
import { GeoValidationError } from './domain-errors';
import { type BBox, type LatLon, bboxOfPoints, isValidLatLon, pointInPolygon } from './geo-math';
import { type CommuneRecord, type DepartmentRecord, type ReferenceData, type RegionRecord, getReferenceData } from './reference-data';
import { SpatialGrid } from './spatial-grid';
import { normaliseName, slugify } from './text-normalise';

/** Page size of `/cities`, aligned with the service-wide maximum of 30 items per page. */
export const CITIES_PAGE_SIZE = 30;

/** Farthest a commune point may be for `nearestCity` to still call it "the" commune of a point. */
export const NEAREST_CITY_DEFAULT_MAX_KM = 30;

export type SortDirection = 'asc' | 'desc';

export interface CityListQuery {
  excludeGroupedCities?: boolean;
  insee?: string | ReadonlyArray<string>;
  zipcode?: string | ReadonlyArray<string>;
  polygon?: ReadonlyArray<LatLon>;
  libelle?: string;
  name?: string;
  slug?: string;
  order?: { name?: SortDirection };
  /** Id of the department the cities belong to. */
  department?: number;
  page?: number;
}

export interface CityListResult {
  items: CityListItem[];
  totalItems: number;
}

export interface DepartmentListQuery {
  code?: ReadonlyArray<string>;
  name?: string;
  page?: number;
  itemsPerPage?: number;
}

export interface DepartmentListResult {
  items: DepartmentResource[];
  totalItems: number;
}

/** Everything the directory knows about one city; `city` and `listItem` are the public shapes. */
export interface CityEntry {
  readonly index: number;
  readonly city: City;
  readonly listItem: CityListItem;
  readonly record: CommuneRecord;
  readonly article: string;
  readonly nameKey: string;
  readonly originalNameKey: string;
  readonly slug: string;
  readonly libelleKey: string;
  /** Set once while the directory is built, then never changed. */
  parent: CityEntry | null;
  readonly children: CityEntry[];
  /** Rank in ascending name order, precomputed so filtered results sort by integer compare. */
  readonly nameRank: number;
}

function toList(value: string | ReadonlyArray<string> | undefined): string[] | null {
  if (value === undefined) return null;
  const list = (typeof value === 'string' ? [value] : [...value]).map((item) => item.trim()).filter((item) => item.length > 0);
  return list;
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

// Zero-pads digit runs so "paris 2e" sorts before "paris 10e" under plain string comparison.
function sortKey(name: string): string {
  return normaliseName(name).replace(/\d+/g, (digits) => digits.padStart(6, '0'));
}

export function validatePolygon(polygon: ReadonlyArray<LatLon>, field = 'polygon'): LatLon[] {
  if (!Array.isArray(polygon)) throw new GeoValidationError(field, 'must be a list of points with lat and lon');
  const points: LatLon[] = [];
  for (const [index, point] of polygon.entries()) {
    const lat = Number((point as Partial<LatLon> | undefined)?.lat);
    const lon = Number((point as Partial<LatLon> | undefined)?.lon);
    if (!isValidLatLon(lat, lon)) throw new GeoValidationError(`${field}[${index}]`, 'lat must be within [-90, 90] and lon within [-180, 180]');
    points.push({ lat, lon });
  }
  const distinct = new Set(points.map((point) => `${point.lat},${point.lon}`));
  if (distinct.size < 3) throw new GeoValidationError(field, 'must contain at least 3 distinct points');
  return points;
}

export class CityDirectory {
  readonly entries: ReadonlyArray<CityEntry>;
  readonly departments: ReadonlyArray<Department>;

  private readonly byId = new Map<number, CityEntry>();
  private readonly byInsee = new Map<string, CityEntry>();
  private readonly byZipcode = new Map<string, CityEntry[]>();
  private readonly byNameKey = new Map<string, CityEntry[]>();
  private readonly bySlug = new Map<string, CityEntry[]>();
  private readonly byDepartmentCode = new Map<string, CityEntry[]>();
  private readonly departmentsById = new Map<number, Department>();
  private readonly departmentsByCode = new Map<string, Department>();
  private readonly grid = new SpatialGrid(0.1);

  constructor(data: ReferenceData) {
    const regionsByCode = new Map<string, RegionRecord>(data.regions.map((region) => [region.code, region]));
    const departmentRecords = new Map<string, DepartmentRecord>(data.departments.map((department) => [department.code, department]));
    const recordsByInsee = new Map(data.communes.map((record) => [record.insee, record]));
    const childrenByParent = new Map<string, CommuneRecord[]>();
    for (const record of data.communes) if (record.parentInsee) pushTo(childrenByParent, record.parentInsee, record);

    const order = [...data.communes]
      .map((record) => ({ record, key: sortKey(nameWithoutArticle(record.name, articleOf(record.name, record.typeLiaison))) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.record.insee < b.record.insee ? -1 : 1));
    const rankByInsee = new Map(order.map((item, rank) => [item.record.insee, rank]));

    const entries: CityEntry[] = [];
    for (const record of data.communes) {
      const department = departmentRecords.get(record.departmentCode);
      if (!department) throw new Error(`Commune ${record.insee} refers to unknown department ${record.departmentCode}`);
      const parentRecord = record.parentInsee ? (recordsByInsee.get(record.parentInsee) ?? null) : null;
      const city = buildCity(record, {
        department,
        region: regionsByCode.get(record.regionCode) ?? null,
        parent: parentRecord,
        children: childrenByParent.get(record.insee) ?? [],
      });
      const article = articleOf(record.name, record.typeLiaison);
      const listItem = toCityListItem(city, article, null);
      entries.push({
        index: entries.length,
        city,
        // The parent reference is filled in below, once every entry exists.
        listItem,
        record,
        article,
        nameKey: normaliseName(city.name),
        originalNameKey: normaliseName(city.originalName),
        slug: slugify(city.originalName),
        libelleKey: normaliseName(listItem.libelle),
        parent: null,
        children: [],
        nameRank: rankByInsee.get(record.insee) ?? 0,
      });
    }
    for (const entry of entries) {
      this.byId.set(entry.city.id, entry);
      this.byInsee.set(entry.city.insee, entry);
    }
    for (const entry of entries) {
      if (!entry.record.parentInsee) continue;
      const parent = this.byInsee.get(entry.record.parentInsee);
      if (!parent) continue;
      entry.parent = parent;
      parent.children.push(entry);
      entry.listItem.cityParent = toCityParentRef(parent.city, parent.article);
    }
    this.entries = entries;

    for (const entry of this.entries) {
      for (const code of entry.record.postalCodes) pushTo(this.byZipcode, code, entry);
      pushTo(this.byNameKey, entry.nameKey, entry);
      if (entry.originalNameKey !== entry.nameKey) pushTo(this.byNameKey, entry.originalNameKey, entry);
      pushTo(this.bySlug, entry.slug, entry);
      pushTo(this.byDepartmentCode, entry.city.department.code, entry);
      if (entry.city.locations) this.grid.insertPoint(entry.index, entry.city.locations);
    }
    // Most specific first: an arrondissement before the commune grouping it, then by population.
    for (const list of this.byZipcode.values()) list.sort(compareSpecificThenPopulation);

    this.departments = data.departments.map((record) =>
      buildDepartment(record, regionsByCode.get(record.regionCode) ?? null, this.byInsee.get(record.chefLieuInsee)?.city.id ?? null),
    );
    for (const department of this.departments) {
      this.departmentsById.set(department.id, department);
      this.departmentsByCode.set(department.code, department);
    }
  }

  get cities(): City[] {
    return this.entries.map((entry) => entry.city);
  }

  entryById(id: number): CityEntry | null {
    return this.byId.get(id) ?? null;
  }

  entryByInsee(insee: string): CityEntry | null {
    return this.byInsee.get(insee.trim().toUpperCase()) ?? null;
  }

  cityById(id: number): City | null {
    return this.byId.get(id)?.city ?? null;
  }

  cityByInsee(insee: string): City | null {
    return this.entryByInsee(insee)?.city ?? null;
  }

  listItemById(id: number): CityListItem | null {
    return this.byId.get(id)?.listItem ?? null;
  }

  /** `GET /cities/{id}`: the list item's shape with the City's other fields. */
  cityResourceById(id: number): CityResource | null {
    const entry = this.byId.get(id);
    return entry ? toCityResource(entry.city, entry.listItem) : null;
  }

  /** Cities having `zipcode` among their postal codes, arrondissements before their parent. */
  citiesByZipcode(zipcode: string): City[] {
    return (this.byZipcode.get(zipcode.trim()) ?? []).map((entry) => entry.city);
  }

  citiesByDepartmentCode(code: string): City[] {
    return (this.byDepartmentCode.get(code.trim().toUpperCase()) ?? []).map((entry) => entry.city);
  }

  citiesByDepartmentId(id: number): City[] {
    const department = this.departmentsById.get(id);
    return department ? this.citiesByDepartmentCode(department.code) : [];
  }

  childrenOf(cityId: number): City[] {
    return (this.byId.get(cityId)?.children ?? []).map((entry) => entry.city);
  }

  parentOf(cityId: number): City | null {
    return this.byId.get(cityId)?.parent?.city ?? null;
  }

  departmentById(id: number): Department | null {
    return this.departmentsById.get(id) ?? null;
  }

  departmentByCode(code: string): Department | null {
    return this.departmentsByCode.get(code.trim().toUpperCase()) ?? null;
  }

  /** Departments by code; a hundred or so, so the filters scan them. */
  listDepartments(query: DepartmentListQuery = {}): DepartmentListResult {
    const page = query.page ?? 1;
    const itemsPerPage = query.itemsPerPage ?? CITIES_PAGE_SIZE;
    const codes = query.code === undefined ? null : new Set(query.code.map((code) => code.trim().toUpperCase()));
    const nameKey = query.name === undefined ? null : normaliseName(query.name);
    const matches = this.departments
      .filter((department) => (codes === null || codes.has(department.code)) && (nameKey === null || normaliseName(department.name).includes(nameKey)))
      .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    const start = (page - 1) * itemsPerPage;
    return { items: matches.slice(start, start + itemsPerPage).map(toDepartmentResource), totalItems: matches.length };
  }

  /**
   * The city a listing's "postal code + town name" designates, tolerant of accents, case,
   * hyphens, `St`/`Ste` and a missing article. Exact name beats a name prefix, which beats all
   * words being present. When the match is a commune grouping arrondissements and one of them owns
   * the postal code ("75015" + "Paris"), the arrondissement is returned: it is the more precise place.
   */
  cityByZipcodeAndName(zipcode: string, name: string): City | null {
    const candidates = this.byZipcode.get(zipcode.trim()) ?? [];
    const key = normaliseName(name);
    if (candidates.length === 0 || key.length === 0) return null;
    const words = key.split(' ');
    const score = (entry: CityEntry): number => {
      if (entry.nameKey === key || entry.originalNameKey === key) return 3;
      if (entry.nameKey.startsWith(key) || entry.originalNameKey.startsWith(key)) return 2;
      const own = new Set(entry.originalNameKey.split(' '));
      return words.every((word) => own.has(word)) ? 1 : 0;
    };
    let best: CityEntry | null = null;
    let bestScore = 0;
    for (const entry of candidates) {
      const value = score(entry);
      if (value > bestScore) {
        best = entry;
        bestScore = value;
      }
    }
    if (!best) return null;
    const child = best.children.find((entry) => entry.record.postalCodes.includes(zipcode.trim()));
    return (child ?? best).city;
  }

  /**
   * Commune whose point is closest to (lat, lon) within `maxKm`. Communes that group
   * arrondissements are skipped: their arrondissements locate the point more precisely.
   */
  nearestCity(lat: number, lon: number, maxKm = NEAREST_CITY_DEFAULT_MAX_KM): City | null {
    if (!isValidLatLon(lat, lon)) throw new GeoValidationError('lat', 'lat must be within [-90, 90] and lon within [-180, 180]');
    const found = this.grid.nearest(
      { lat, lon },
      (index) => this.entries[index]?.city.locations ?? null,
      maxKm,
      (index) => (this.entries[index]?.children.length ?? 0) === 0,
    );
    return found ? (this.entries[found.id]?.city ?? null) : null;
  }

  /** Cities whose point lies inside `box`; exact, not just the grid candidates. */
  citiesInBox(box: BBox): CityEntry[] {
    return this.grid
      .queryBox(box)
      .flatMap((index) => {
        const entry = this.entries[index];
        const point = entry?.city.locations;
        return entry && point && point.lon >= box[0] && point.lon <= box[2] && point.lat >= box[1] && point.lat <= box[3] ? [entry] : [];
      });
  }

  /** Cities whose point lies inside the polygon (validated: ≥ 3 distinct points). */
  citiesInPolygon(polygon: ReadonlyArray<LatLon>): City[] {
    return this.entriesInPolygon(validatePolygon(polygon)).map((entry) => entry.city);
  }

  private entriesInPolygon(points: LatLon[]): CityEntry[] {
    const box = bboxOfPoints(points);
    if (!box) return [];
    return this.citiesInBox(box).filter((entry) => entry.city.locations !== null && pointInPolygon(entry.city.locations, points));
  }

  listCities(query: CityListQuery = {}): CityListResult {
    const direction = query.order?.name ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') throw new GeoValidationError('order[name]', 'must be "asc" or "desc"');
    const page = query.page ?? 1;
    if (!Number.isInteger(page) || page < 1) throw new GeoValidationError('page', 'must be an integer greater than or equal to 1');
    const polygon = query.polygon === undefined ? null : validatePolygon(query.polygon);

    // Start from the most selective index available, then apply the remaining filters.
    const insee = toList(query.insee);
    const zipcodes = toList(query.zipcode);
    const nameKey = query.name === undefined ? null : normaliseName(query.name);
    const slug = query.slug === undefined ? null : slugify(query.slug);
    const libelleKey = query.libelle === undefined ? null : normaliseName(query.libelle);

    const departmentCode = query.department === undefined ? null : (this.departmentsById.get(query.department)?.code ?? '');

    let candidates: Iterable<CityEntry>;
    if (departmentCode !== null && !insee && !zipcodes) candidates = this.byDepartmentCode.get(departmentCode) ?? [];
    else if (insee) candidates = insee.flatMap((code) => this.entryByInsee(code) ?? []);
    else if (zipcodes) candidates = zipcodes.flatMap((code) => this.byZipcode.get(code) ?? []);
    else if (slug !== null) candidates = this.bySlug.get(slug) ?? [];
    else if (nameKey !== null) candidates = this.byNameKey.get(nameKey) ?? [];
    else if (polygon) candidates = this.entriesInPolygon(polygon);
    else candidates = this.entries;

    const zipcodeSet = zipcodes ? new Set(zipcodes) : null;
    const inseeSet = insee ? new Set(insee.map((code) => code.toUpperCase())) : null;
    const seen = new Set<number>();
    const matches: CityEntry[] = [];
    for (const entry of candidates) {
      if (seen.has(entry.index)) continue;
      seen.add(entry.index);
      if (query.excludeGroupedCities && entry.children.length > 0) continue;
      if (departmentCode !== null && entry.city.department.code !== departmentCode) continue;
      if (inseeSet && !inseeSet.has(entry.city.insee)) continue;
      if (zipcodeSet && !entry.record.postalCodes.some((code) => zipcodeSet.has(code))) continue;
      if (slug !== null && entry.slug !== slug) continue;
      if (nameKey !== null && entry.nameKey !== nameKey && entry.originalNameKey !== nameKey) continue;
      if (libelleKey !== null && !entry.libelleKey.includes(libelleKey)) continue;
      if (polygon && !(entry.city.locations && pointInPolygon(entry.city.locations, polygon))) continue;
      matches.push(entry);
    }
    matches.sort((a, b) => (direction === 'asc' ? a.nameRank - b.nameRank : b.nameRank - a.nameRank));
    const start = (page - 1) * CITIES_PAGE_SIZE;
    return {
      items: matches.slice(start, start + CITIES_PAGE_SIZE).map((entry) => entry.listItem),
      totalItems: matches.length,
    };
  }

  iriOf(city: City): string {
    return cityIri(city.id);
  }
}

function compareSpecificThenPopulation(a: CityEntry, b: CityEntry): number {
  const grouping = a.children.length - b.children.length;
  if (grouping !== 0) return grouping;
  return b.record.population - a.record.population || (a.city.insee < b.city.insee ? -1 : 1);
}

/** Builds a directory from already loaded (or the process-wide) reference data. */
export function buildCityDirectory(data: ReferenceData = getReferenceData()): CityDirectory {
  return new CityDirectory(data);
}

let shared: CityDirectory | null = null;

/** Process-wide directory, built on first use. */
export function getCityDirectory(): CityDirectory {
  shared ??= buildCityDirectory();
  return shared;
}
