/**
 * The cities and departments a search names, as the objects its record shows (spec: Search,
 * stored record), looked up in the geo service once when the search is written.
 */
import { GEO_SUBJECTS, type City, type CityRelation, type DepartmentRelation, type SearchRelations, type Violation } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';

/** What the record shows of a department, as geo names it. */
interface GeoDepartment {
  id: number;
  departmentCode: string;
  name: string;
  nameClean: string;
  chefLieu: string | null;
}

/** INSEE's article is what the official name has before the bare name ("Le Havre" / "Havre" → "le"). */
function articleOf(city: City): string {
  if (city.originalName === city.name || !city.originalName.endsWith(city.name)) return '';
  return city.originalName.slice(0, city.originalName.length - city.name.length).trim().toLowerCase();
}

function cityRelation(city: City): CityRelation {
  return {
    '@context': '/contexts/City',
    '@id': `/cities/${city.id}`,
    '@type': 'City',
    article: articleOf(city),
    insee: city.insee,
    libelle: city.zipcode ? `${city.originalName} (${city.zipcode})` : city.originalName,
    name: city.name,
    zipcode: city.zipcode,
  };
}

function departmentRelation(department: GeoDepartment): DepartmentRelation {
  return {
    '@context': '/contexts/Department',
    '@id': `/departments/${department.id}`,
    '@type': 'Department',
    chefLieu: department.chefLieu,
    departmentCode: department.departmentCode,
    name: department.name,
    nameClean: department.nameClean,
  };
}

export type RelationsResult = { ok: true; relations: SearchRelations } | { ok: false; violations: Violation[] };

export class PlaceRelations {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** Ids as the criteria library read them (`/cities/75056` → 75056); unknown ids are violations. */
  async resolve(ids: { includedCities: number[]; excludedCities: number[]; includedDepartments: number[] }): Promise<RelationsResult> {
    const violations: Violation[] = [];
    const cities = async (field: 'includedCities' | 'excludedCities'): Promise<CityRelation[]> =>
      (
        await Promise.all(
          ids[field].map(async (id, index) => {
            const city = await this.found<City>(GEO_SUBJECTS.cityById, { id });
            if (!city) violations.push({ propertyPath: `${field}[${index}]`, message: `no city has the id ${id}` });
            return city ? cityRelation(city) : null;
          }),
        )
      ).filter((relation): relation is CityRelation => relation !== null);
    const [includedCities, excludedCities, includedDepartments] = await Promise.all([
      cities('includedCities'),
      cities('excludedCities'),
      Promise.all(
        ids.includedDepartments.map(async (id, index) => {
          const department = await this.found<GeoDepartment>(GEO_SUBJECTS.department, { id });
          if (!department) violations.push({ propertyPath: `includedDepartments[${index}]`, message: `no department has the id ${id}` });
          return department ? departmentRelation(department) : null;
        }),
      ).then((relations) => relations.filter((relation): relation is DepartmentRelation => relation !== null)),
    ]);
    if (violations.length > 0) return { ok: false, violations };
    return { ok: true, relations: { includedCities, excludedCities, includedDepartments } };
  }

  /** The answer, or null for a 404; any other failure (geo down) propagates. */
  private async found<T>(subject: string, payload: unknown): Promise<T | null> {
    try {
      return await this.rpc.request<T>(subject, payload);
    } catch (error) {
      if (error instanceof RpcCallError && error.kind === 'remote' && error.payload?.status === 404) return null;
      throw error;
    }
  }
}
