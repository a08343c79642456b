/**
 * Public shapes of the geo resources (spec: City, City list item, Location suggestion) and the pure
 * functions that build them from reference records.
 *
 * Naming follows INSEE's split between the article and the rest of the name (TNCC / NCCENR / LIBELLE):
 * - `originalName`: the official name, article included ("L'Haÿ-les-Roses", "Le Havre").
 * - `article`: "le", "la", "les", "l'", "aux", "las", "los" or "" — from the INSEE name type
 *   (`typeLiaison`), or read off the name when the source has no type (overseas collectivities).
 * - `name`: the official name without that article ("Haÿ-les-Roses", "Havre"); identical to
 *   `originalName` for the large majority of communes, which have no article.
 * - `libelle`: `<originalName> (<zipcode>)`, e.g. "Paris 15e Arrondissement (75015)"; just the
 *   official name when the commune has no postal code.
 * - `displayName` (suggestions): `<originalName> (<department code>)`, e.g. "Saint-Étienne (42)",
 *   because the department is what tells homonyms apart in a dropdown.
 *
 * Grouping (parents of municipal arrondissements: Paris, Lyon, Marseille):
 * - `hasGroupedByName`: the city groups other cities under its name (it has arrondissements).
 * - `groupedCityNames`: the arrondissements' official names, in INSEE order; [] otherwise.
 * - `groupedCityZipcodes`: for a parent, the arrondissements' postal codes (deduplicated, INSEE
 *   order); for any other commune with several postal codes, all of them; [] for a single code.
 * - `hasGroupedByZipcode`: `groupedCityZipcodes` holds more than one code.
 * - `cityParentId`: id of the parent commune for an arrondissement, null otherwise.
 */
import type { City, CityRef as CodeRef } from '@immo/contracts';
import type { LatLon } from './geo-math';
import { FRANCE, type CommuneRecord, type DepartmentRecord, type RegionRecord } from './reference-data';
import { slugify } from './text-normalise';

// The City object is the contract's (property documents embed it); `CodeRef` is its {code, id, name}.
export type { City, CityRef as CodeRef } from '@immo/contracts';

export interface CityParentRef {
  '@id': string;
  '@type': 'City';
  zipcode: string | null;
  insee: string;
  article: string;
  name: string | null;
  libelle: string | null;
}

export interface CityListItem {
  '@id': string;
  '@type': 'City';
  zipcode: string | null;
  insee: string;
  article: string;
  name: string;
  libelle: string;
  department: string;
  cityParent: CityParentRef | null;
  originalName: string;
  /** The city's point (see `locations` of {@link City}); null when none is known. */
  latitude: number | null;
  longitude: number | null;
}

/**
 * `GET /cities/{id}`: the list item, then the City fields that do not collide with it (`department`
 * stays the list item's IRI; its code and name are in the department resource).
 */
export type CityResource = CityListItem & Omit<City, keyof CityListItem>;

export interface Department {
  id: number;
  code: string;
  name: string;
  article: string;
  region: CodeRef;
  chefLieuInsee: string;
  chefLieuCityId: number | null;
  location: LatLon | null;
  population: number;
  /** The original service's names: the code, the slug of the name, the chef-lieu's city IRI. */
  departmentCode: string;
  nameClean: string;
  chefLieu: string | null;
}

/** A department as `GET /departments` lists it and `GET /departments/{id}` answers it. */
export type DepartmentResource = { '@id': string; '@type': 'Department' } & Department;

export interface LocationSuggestion {
  '@id': string;
  '@type': 'City' | 'Department';
  code: string;
  displayName: string;
  groupedCityNames: string[];
  groupedCityZipcodes: string[];
  id: string;
  /** The city's INSEE code; null for a department. */
  insee: string | null;
  libelle: string;
  location: LatLon | null;
  name: string;
  /** The city's first postal code; null for a department. */
  zipcode: string | null;
}

export const cityIri = (id: number): string => `/cities/${id}`;
export const departmentIri = (id: number): string => `/departments/${id}`;

const ARTICLE_BY_TYPE: Readonly<Record<number, string>> = { 2: 'le', 3: 'la', 4: 'les', 5: "l'", 6: 'aux', 7: 'las', 8: 'los' };

/** French article of a place name, from the INSEE name type or, failing that, the name itself. */
export function articleOf(name: string, typeLiaison: number | null): string {
  if (typeLiaison !== null) return ARTICLE_BY_TYPE[typeLiaison] ?? '';
  const match = /^(les|le|la|aux|las|los)\s|^(l)['’]/i.exec(name);
  if (!match) return '';
  return match[1] ? match[1].toLowerCase() : "l'";
}

/** The name with its leading article removed, when the name really starts with it. */
export function nameWithoutArticle(name: string, article: string): string {
  if (article === '') return name;
  const pattern = article === "l'" ? /^l['’]\s*/i : new RegExp(`^${article}\\s+`, 'i');
  const stripped = name.replace(pattern, '');
  return stripped.length > 0 ? stripped : name;
}

export function cityLibelle(originalName: string, zipcode: string | null): string {
  return zipcode ? `${originalName} (${zipcode})` : originalName;
}

export interface CityBuildContext {
  department: DepartmentRecord;
  region: RegionRecord | null;
  parent: CommuneRecord | null;
  children: ReadonlyArray<CommuneRecord>;
}

function uniqueInOrder(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

export function buildCity(record: CommuneRecord, context: CityBuildContext): City {
  const article = articleOf(record.name, record.typeLiaison);
  const groupedCityZipcodes =
    context.children.length > 0
      ? uniqueInOrder(context.children.flatMap((child) => child.postalCodes))
      : record.postalCodes.length > 1
        ? [...record.postalCodes]
        : [];
  return {
    id: record.id,
    cityParentId: context.parent?.id ?? null,
    name: nameWithoutArticle(record.name, article),
    originalName: record.name,
    insee: record.insee,
    zipcode: record.postalCodes[0] ?? null,
    open: true,
    hasGroupedByName: context.children.length > 0,
    hasGroupedByZipcode: groupedCityZipcodes.length > 1,
    groupedCityNames: context.children.map((child) => child.name),
    groupedCityZipcodes,
    country: { ...FRANCE },
    department: { code: context.department.code, id: context.department.id, name: context.department.name },
    region: context.region
      ? { code: context.region.code, id: context.region.id, name: context.region.name }
      : { code: context.department.regionCode, id: Number(context.department.regionCode), name: '' },
    locations: record.point ? { lat: record.point.lat, lon: record.point.lon } : null,
  };
}

export function toCityParentRef(parent: City, parentArticle: string): CityParentRef {
  return {
    '@id': cityIri(parent.id),
    '@type': 'City',
    zipcode: parent.zipcode,
    insee: parent.insee,
    article: parentArticle,
    name: parent.name,
    libelle: cityLibelle(parent.originalName, parent.zipcode),
  };
}

export function toCityListItem(city: City, article: string, parent: CityParentRef | null): CityListItem {
  return {
    '@id': cityIri(city.id),
    '@type': 'City',
    zipcode: city.zipcode,
    insee: city.insee,
    article,
    name: city.name,
    libelle: cityLibelle(city.originalName, city.zipcode),
    department: departmentIri(city.department.id),
    cityParent: parent,
    originalName: city.originalName,
    latitude: city.locations?.lat ?? null,
    longitude: city.locations?.lon ?? null,
  };
}

export function toCityResource(city: City, listItem: CityListItem): CityResource {
  const { department: _department, name: _name, insee: _insee, zipcode: _zipcode, originalName: _originalName, ...richer } = city;
  return { ...listItem, ...richer };
}

export function toDepartmentResource(department: Department): DepartmentResource {
  return { '@id': departmentIri(department.id), '@type': 'Department', ...department };
}

export function buildDepartment(record: DepartmentRecord, region: RegionRecord | null, chefLieuCityId: number | null): Department {
  const article = articleOf(record.name, record.typeLiaison);
  return {
    id: record.id,
    code: record.code,
    name: record.name,
    article,
    region: region ? { code: region.code, id: region.id, name: region.name } : { code: record.regionCode, id: Number(record.regionCode), name: '' },
    chefLieuInsee: record.chefLieuInsee,
    chefLieuCityId,
    location: record.point ? { lat: record.point.lat, lon: record.point.lon } : null,
    population: record.population,
    departmentCode: record.code,
    nameClean: slugify(record.name),
    chefLieu: chefLieuCityId === null ? null : cityIri(chefLieuCityId),
  };
}

export function toCitySuggestion(city: City): LocationSuggestion {
  return {
    '@id': cityIri(city.id),
    '@type': 'City',
    code: city.insee,
    displayName: `${city.originalName} (${city.department.code})`,
    groupedCityNames: [...city.groupedCityNames],
    groupedCityZipcodes: [...city.groupedCityZipcodes],
    id: String(city.id),
    insee: city.insee,
    libelle: cityLibelle(city.originalName, city.zipcode),
    location: city.locations ? { ...city.locations } : null,
    name: city.name,
    zipcode: city.zipcode,
  };
}

export function toDepartmentSuggestion(department: Department): LocationSuggestion {
  const label = `${department.name} (${department.code})`;
  return {
    '@id': departmentIri(department.id),
    '@type': 'Department',
    code: department.code,
    displayName: label,
    groupedCityNames: [],
    groupedCityZipcodes: [],
    id: String(department.id),
    insee: null,
    libelle: label,
    location: department.location ? { ...department.location } : null,
    name: department.name,
    zipcode: null,
  };
}
