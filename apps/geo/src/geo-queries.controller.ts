import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import {
  GEO_SUBJECTS,
  citiesByZipcodeRequestSchema,
  cityByIdRequestSchema,
  cityByInseeRequestSchema,
  cityByZipcodeAndNameRequestSchema,
  departmentRequestSchema,
  listCitiesRequestSchema,
  listDepartmentsRequestSchema,
  locationAutocompleteRequestSchema,
  nearestCityRequestSchema,
  pointsOfInterestRequestSchema,
  rpcErrors,
  stationsNearRequestSchema,
  stationsRequestSchema,
} from '@immo/contracts';
import { parseRpcPayload } from '@immo/service-kit';
import { isGeoValidationError, locatedStations, stationsNear, type AutocompleteIndex, type CityDirectory, type PoiSource } from './domain';

export const CITY_DIRECTORY = Symbol('CITY_DIRECTORY');
export const AUTOCOMPLETE_INDEX = Symbol('AUTOCOMPLETE_INDEX');
export const POI_SOURCE = Symbol('POI_SOURCE');

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new RpcException(rpcErrors.notFound(`${what} was not found.`));
  return value;
}

/** Domain validation errors name the parameter already; they travel as 400s. */
function asRpcError(error: unknown): never {
  if (isGeoValidationError(error)) throw new RpcException(rpcErrors.badRequest(error.message, [...error.violations]));
  throw error;
}

@Controller()
export class GeoQueriesController {
  constructor(
    @Inject(CITY_DIRECTORY) private readonly directory: CityDirectory,
    @Inject(AUTOCOMPLETE_INDEX) private readonly autocompleteIndex: AutocompleteIndex,
    @Inject(POI_SOURCE) private readonly pois: PoiSource,
  ) {}

  @MessagePattern(GEO_SUBJECTS.listCities)
  listCities(@Payload() payload: unknown) {
    const query = parseRpcPayload(listCitiesRequestSchema, payload);
    try {
      return this.directory.listCities(query);
    } catch (error) {
      return asRpcError(error);
    }
  }

  @MessagePattern(GEO_SUBJECTS.cityById)
  cityById(@Payload() payload: unknown) {
    const { id } = parseRpcPayload(cityByIdRequestSchema, payload);
    return found(this.directory.cityById(id), `City ${id}`);
  }

  @MessagePattern(GEO_SUBJECTS.cityResource)
  cityResource(@Payload() payload: unknown) {
    const { id } = parseRpcPayload(cityByIdRequestSchema, payload);
    return found(this.directory.cityResourceById(id), `City ${id}`);
  }

  @MessagePattern(GEO_SUBJECTS.cityByInsee)
  cityByInsee(@Payload() payload: unknown) {
    const { insee } = parseRpcPayload(cityByInseeRequestSchema, payload);
    return found(this.directory.cityByInsee(insee), `The city with INSEE code ${insee}`);
  }

  @MessagePattern(GEO_SUBJECTS.citiesByZipcode)
  citiesByZipcode(@Payload() payload: unknown) {
    return this.directory.citiesByZipcode(parseRpcPayload(citiesByZipcodeRequestSchema, payload).zipcode);
  }

  @MessagePattern(GEO_SUBJECTS.cityByZipcodeAndName)
  cityByZipcodeAndName(@Payload() payload: unknown) {
    const { zipcode, name } = parseRpcPayload(cityByZipcodeAndNameRequestSchema, payload);
    return found(this.directory.cityByZipcodeAndName(zipcode, name), `The city ${name} (${zipcode})`);
  }

  @MessagePattern(GEO_SUBJECTS.nearestCity)
  nearestCity(@Payload() payload: unknown) {
    const { lat, lon, maxKm } = parseRpcPayload(nearestCityRequestSchema, payload);
    return found(this.directory.nearestCity(lat, lon, maxKm), `A city near ${lat},${lon}`);
  }

  @MessagePattern(GEO_SUBJECTS.department)
  department(@Payload() payload: unknown) {
    const request = parseRpcPayload(departmentRequestSchema, payload);
    return request.id !== undefined
      ? found(this.directory.departmentById(request.id), `Department ${request.id}`)
      : found(this.directory.departmentByCode(request.code ?? ''), `Department ${request.code ?? ''}`);
  }

  @MessagePattern(GEO_SUBJECTS.listDepartments)
  listDepartments(@Payload() payload: unknown) {
    return this.directory.listDepartments(parseRpcPayload(listDepartmentsRequestSchema, payload));
  }

  @MessagePattern(GEO_SUBJECTS.locationAutocomplete)
  locationAutocomplete(@Payload() payload: unknown) {
    const request = parseRpcPayload(locationAutocompleteRequestSchema, payload);
    try {
      return this.autocompleteIndex.search(request);
    } catch (error) {
      return asRpcError(error);
    }
  }

  @MessagePattern(GEO_SUBJECTS.pointsOfInterest)
  pointsOfInterest(@Payload() payload: unknown) {
    const { lat, lon, radius, facilities } = parseRpcPayload(pointsOfInterestRequestSchema, payload);
    try {
      return this.pois.poisWithin({ lat, lon, radiusKm: radius, facilities });
    } catch (error) {
      return asRpcError(error);
    }
  }

  @MessagePattern(GEO_SUBJECTS.stationsNear)
  stationsNear(@Payload() payload: unknown) {
    const { lat, lon, radiusKm, limit } = parseRpcPayload(stationsNearRequestSchema, payload);
    return stationsNear(lat, lon, radiusKm, limit);
  }

  /** Every station with its location: listings ranks them per advert itself instead of asking per location. */
  @MessagePattern(GEO_SUBJECTS.stations)
  stations(@Payload() payload: unknown) {
    parseRpcPayload(stationsRequestSchema, payload ?? {});
    return locatedStations();
  }
}
