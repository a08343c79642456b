/**
 * Place filters on the property's city (`PropertyDocument.city`).
 *
 * - Included lists of every kind (cities, departments, INSEE codes, postal codes) describe ONE
 *   area, their union: "Lyon, or anywhere in department 01, or postal code 38000".
 * - Excluded lists always remove, whatever the included lists say.
 * - A city id is the geo service's id, which is the INSEE code read as a number (Corsica aside,
 *   see apps/geo reference-data.ts). Documents carry both `city.id` and `city.insee`, so each list
 *   is compared with its own field and no conversion is needed.
 * - A commune with municipal arrondissements covers them, by city id and by INSEE code alike
 *   (see arrondissements.ts): `/cities/75056` finds a flat in Paris 15e.
 * - Postal codes: a city's codes are its `zipcode` and, for a commune with several codes, its
 *   `groupedCityZipcodes`; a document does not say which of them is the property's own, so each
 *   counts. The codes a parent commune lists for its arrondissements are not its own: a property
 *   known only as "Paris" is not found by 75015.
 * - A property without a city is outside every included area and inside no excluded one.
 */
import type { City, PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from './criteria';
import { communeOfArrondissement } from './arrondissements';

type PlaceCriteria = Pick<
  PropertyCriteria,
  | 'includedCities'
  | 'excludedCities'
  | 'includedDepartments'
  | 'includedInseeCodes'
  | 'excludedInseeCodes'
  | 'includedZipcodes'
  | 'excludedZipcodes'
  | 'excludedProperties'
>;

export function matchesPlaces(criteria: PlaceCriteria, doc: PropertyDocument): boolean {
  if (criteria.excludedProperties.includes(doc.uuid.toLowerCase())) return false;
  const city = doc.city;
  if (city !== null && isExcluded(criteria, city)) return false;
  const anyIncluded =
    criteria.includedCities.length > 0 ||
    criteria.includedDepartments.length > 0 ||
    criteria.includedInseeCodes.length > 0 ||
    criteria.includedZipcodes.length > 0;
  if (!anyIncluded) return true;
  return city !== null && isIncluded(criteria, city);
}

function isIncluded(criteria: PlaceCriteria, city: City): boolean {
  return (
    cityIdsCovering(city).some((id) => criteria.includedCities.includes(id)) ||
    criteria.includedDepartments.includes(city.department.id) ||
    inseeCodesCovering(city).some((code) => criteria.includedInseeCodes.includes(code)) ||
    zipcodesOf(city).some((code) => criteria.includedZipcodes.includes(code))
  );
}

function isExcluded(criteria: PlaceCriteria, city: City): boolean {
  return (
    cityIdsCovering(city).some((id) => criteria.excludedCities.includes(id)) ||
    inseeCodesCovering(city).some((code) => criteria.excludedInseeCodes.includes(code)) ||
    zipcodesOf(city).some((code) => criteria.excludedZipcodes.includes(code))
  );
}

/** The city's id and, for an arrondissement, its commune's id. */
export function cityIdsCovering(city: City): number[] {
  const ids = [city.id];
  if (city.cityParentId !== null) ids.push(city.cityParentId);
  const commune = communeOfArrondissement(city.id);
  if (commune !== null) ids.push(commune);
  return ids;
}

/** The city's INSEE code and, for an arrondissement, its commune's. */
export function inseeCodesCovering(city: City): string[] {
  const codes = [city.insee.toUpperCase()];
  const commune = /^\d{5}$/.test(city.insee) ? communeOfArrondissement(Number(city.insee)) : null;
  if (commune !== null) codes.push(String(commune).padStart(5, '0'));
  return codes;
}

export function zipcodesOf(city: City): string[] {
  const codes = city.zipcode === null ? [] : [city.zipcode];
  if (!city.hasGroupedByName) codes.push(...city.groupedCityZipcodes);
  return codes;
}
