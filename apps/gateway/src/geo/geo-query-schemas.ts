import { z } from 'zod';
import { FACILITY_CATEGORIES, MAX_GEO_ITEMS_PER_PAGE, MAX_POI_RADIUS_KM } from '@immo/contracts';
import { pageParams, queryParam } from '../http/query-params';

/** HTTP query schemas of the geo endpoints: strings in, typed contract payloads out. */

const oneOrMany = (item: z.ZodType<string>) => queryParam.array(item, 200);

export const citiesQuerySchema = z
  .object({
    excludeGroupedCities: queryParam.boolean().optional(),
    insee: oneOrMany(z.string().max(10)).optional(),
    zipcode: oneOrMany(z.string().max(10)).optional(),
    polygon: z
      .array(z.object({ lat: queryParam.number({ min: -90, max: 90 }), lon: queryParam.number({ min: -180, max: 180 }) }).strict(), {
        message: 'must be a list of points written polygon[<i>][lat] and polygon[<i>][lon]',
      })
      .min(3, 'must contain at least 3 points')
      .max(1000)
      .optional(),
    libelle: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
    slug: z.string().max(200).optional(),
    order: z.object({ name: queryParam.order().optional() }, { message: 'must be written order[name]=asc|desc' }).strict().optional(),
    page: queryParam.int({ min: 1, max: 100000 }).default(1),
  })
  .strict();

export const departmentsQuerySchema = z.object({
  code: oneOrMany(z.string().max(10)).optional(),
  name: z.string().max(200).optional(),
  ...pageParams({ defaultItemsPerPage: MAX_GEO_ITEMS_PER_PAGE, maxItemsPerPage: MAX_GEO_ITEMS_PER_PAGE }),
});

/** `GET /departments/{id}/cities`: pages of the department's cities, by name. */
export const departmentCitiesQuerySchema = z.object({ page: queryParam.int({ min: 1, max: 100000 }).default(1) });

export const autocompleteQuerySchema = z
  .object({
    q: z.string().max(100, 'must be at most 100 characters').optional(),
    query: z.string().max(100, 'must be at most 100 characters').optional(),
    excludedCitiesIds: queryParam.array(z.string().regex(/^(\/cities\/)?\d+$/, 'must be a city IRI such as /cities/42'), 200).optional(),
    excludedDepartmentsIds: queryParam.array(z.string().regex(/^(\/departments\/)?\d+$/, 'must be a department IRI such as /departments/42'), 200).optional(),
  })
  .strict()
  .refine((value) => (value.q ?? value.query) !== undefined, { message: 'the search term is required (q or query)', path: ['q'] });

export const pointsOfInterestQuerySchema = z
  .object({
    facilities: queryParam.array(z.enum(FACILITY_CATEGORIES, { message: `must be one of ${FACILITY_CATEGORIES.join(', ')}` }), 10),
    lat: queryParam.number({ min: -90, max: 90 }),
    lon: queryParam.number({ min: -180, max: 180 }),
    radius: queryParam
      .number()
      .pipe(z.number().positive('must be greater than 0').max(MAX_POI_RADIUS_KM, `must be at most ${MAX_POI_RADIUS_KM} km`)),
  })
  .strict();
