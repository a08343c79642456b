import { z } from 'zod';

/** Request/reply subjects of the geo service. A breaking change adds `.v2` beside `.v1`. */
export const GEO_SUBJECTS = {
  listCities: 'geo.query.cities.v1',
  cityById: 'geo.query.city-by-id.v1',
  /** `GET /cities/{id}`: the list item's shape with the City's other fields. */
  cityResource: 'geo.query.city-resource.v1',
  cityByInsee: 'geo.query.city-by-insee.v1',
  citiesByZipcode: 'geo.query.cities-by-zipcode.v1',
  cityByZipcodeAndName: 'geo.query.city-by-zipcode-and-name.v1',
  nearestCity: 'geo.query.nearest-city.v1',
  department: 'geo.query.department.v1',
  /** `GET /departments`, a page at a time, by code. */
  listDepartments: 'geo.query.departments.v1',
  locationAutocomplete: 'geo.query.location-autocomplete.v1',
  pointsOfInterest: 'geo.query.points-of-interest.v1',
  stationsNear: 'geo.query.stations-near.v1',
  /** Every station with its location (`LocatedStation[]`), for services that rank stations themselves. */
  stations: 'geo.query.stations.v1',
} as const;

export const FACILITY_CATEGORIES = ['kindergarten', 'school', 'restaurant', 'hospital', 'parking'] as const;
export type FacilityCategory = (typeof FACILITY_CATEGORIES)[number];

/** Largest radius accepted for points of interest: beyond it answers would be huge and useless. */
export const MAX_POI_RADIUS_KM = 10;

const latitude = z.number().min(-90, 'must be between -90 and 90').max(90, 'must be between -90 and 90');
const longitude = z.number().min(-180, 'must be between -180 and 180').max(180, 'must be between -180 and 180');
export const latLonSchema = z.object({ lat: latitude, lon: longitude }).strict();

const inseeCode = z.string().regex(/^(\d{5}|2[AB]\d{3})$/, 'must be a 5-character INSEE code');
const zipcode = z.string().regex(/^\d{5}$/, 'must be a 5-digit postal code');

export const listCitiesRequestSchema = z
  .object({
    excludeGroupedCities: z.boolean().optional(),
    insee: z.array(inseeCode).max(200).optional(),
    zipcode: z.array(zipcode).max(200).optional(),
    polygon: z.array(latLonSchema).min(3, 'must contain at least 3 points').max(1000).optional(),
    libelle: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
    slug: z.string().max(200).optional(),
    order: z.object({ name: z.enum(['asc', 'desc']).optional() }).strict().optional(),
    department: z.number().int().positive().optional(),
    page: z.number().int().min(1).default(1),
  })
  .strict();
export type ListCitiesRequest = z.input<typeof listCitiesRequestSchema>;

export const cityByIdRequestSchema = z.object({ id: z.number().int().positive() }).strict();
export const cityByInseeRequestSchema = z.object({ insee: inseeCode }).strict();
export const citiesByZipcodeRequestSchema = z.object({ zipcode }).strict();
export const cityByZipcodeAndNameRequestSchema = z.object({ zipcode, name: z.string().min(1).max(200) }).strict();
export const nearestCityRequestSchema = z.object({ lat: latitude, lon: longitude, maxKm: z.number().positive().max(200).optional() }).strict();

export const departmentRequestSchema = z
  .object({ id: z.number().int().positive().optional(), code: z.string().regex(/^(\d{2,3}|2[AB])$/, 'must be a department code').optional() })
  .strict()
  .refine((value) => (value.id === undefined) !== (value.code === undefined), { message: 'give exactly one of id or code' });

/** Largest page of `GET /departments` (and of a department's cities): the service-wide maximum. */
export const MAX_GEO_ITEMS_PER_PAGE = 30;

export const listDepartmentsRequestSchema = z
  .object({
    code: z.array(z.string().max(10)).max(200).optional(),
    name: z.string().max(200).optional(),
    page: z.number().int().min(1).default(1),
    itemsPerPage: z.number().int().min(1).max(MAX_GEO_ITEMS_PER_PAGE).default(MAX_GEO_ITEMS_PER_PAGE),
  })
  .strict();

export const locationAutocompleteRequestSchema = z
  .object({
    query: z.string().max(100, 'must be at most 100 characters'),
    excludedCitiesIds: z.array(z.string().max(100)).max(200).default([]),
    excludedDepartmentsIds: z.array(z.string().max(100)).max(200).default([]),
    limit: z.number().int().min(1).max(50).optional(),
  })
  .strict();

export const pointsOfInterestRequestSchema = z
  .object({
    facilities: z.array(z.enum(FACILITY_CATEGORIES)).min(1, 'must name at least one facility'),
    lat: latitude,
    lon: longitude,
    radius: z.number().positive('must be greater than 0').max(MAX_POI_RADIUS_KM, `must be at most ${MAX_POI_RADIUS_KM} km`),
  })
  .strict();

export const stationsNearRequestSchema = z
  .object({ lat: latitude, lon: longitude, radiusKm: z.number().positive().max(20).default(1), limit: z.number().int().min(1).max(50).default(5) })
  .strict();

export const stationsRequestSchema = z.object({}).strict();
