/** A saved search as the API shows it (spec: Search resource, stored record). */
export interface CityRelation {
  '@context': '/contexts/City';
  '@id': string;
  '@type': 'City';
  article: string;
  insee: string;
  libelle: string;
  name: string;
  zipcode: string | null;
}

export interface DepartmentRelation {
  '@context': '/contexts/Department';
  '@id': string;
  '@type': 'Department';
  chefLieu: string | null;
  departmentCode: string;
  name: string;
  nameClean: string;
}

export interface SiteCategoryRelation {
  '@context': '/contexts/SiteCategory';
  '@id': string;
  '@type': 'SiteCategory';
  name: string;
}

/** A site category is known by its name: its IRI is `/site_categories/<name>` (percent-encoded). */
export function siteCategoryRelation(name: string): SiteCategoryRelation {
  return { '@context': '/contexts/SiteCategory', '@id': `/site_categories/${encodeURIComponent(name)}`, '@type': 'SiteCategory', name };
}

export interface SearchRelations {
  includedCities: CityRelation[];
  excludedCities: CityRelation[];
  includedDepartments: DepartmentRelation[];
}

/**
 * Optional criteria of the original service's Search resource that every record shows, set or
 * not, as its records do: a list as `[]`, a value as `null` when unset. (A name the criteria
 * library does not read is left out of the record: it would be refused when the record is sent
 * back.) `transactionType`, `propertyTypes` and `withCoherentPrice` are always set.
 */
export const SEARCH_RECORD_LISTS = ['publisherTypes', 'expressions', 'geoShapes', 'excludedSites'] as const;
export const SEARCH_RECORD_VALUES = [
  'bedroomMin',
  'bedroomMax',
  'roomMin',
  'roomMax',
  'budgetMin',
  'budgetMax',
  'surfaceMin',
  'surfaceMax',
  'landSurfaceMin',
  'landSurfaceMax',
  'pricePerMeterMin',
  'pricePerMeterMax',
  'advertPriceMin',
  'advertPriceMax',
  'furnished',
  'withVirtualTour',
  'lat',
  'lon',
  'radius',
  'geoAccuracy',
] as const;

export type SearchRecord = Record<string, unknown> & {
  '@context': '/contexts/Search';
  '@id': string;
  '@type': 'Search';
  id: string;
  title: string;
  notificationEnabled: boolean;
  createdAt: string;
  updatedAt: string;
  lastAlertAt: string | null;
  token: string;
  user: string;
};
