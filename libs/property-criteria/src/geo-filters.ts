/**
 * Position filters on `PropertyDocument.locations`: the radius around `lat`/`lon` and the union of
 * `geoShapes`. A property without coordinates satisfies neither: the spec makes them "effective
 * when the property has coordinates", and a property whose position is unknown cannot be said to
 * lie inside an area. Documents never fall back to the city centre for `locations`, so this does
 * not place a whole commune's listings at its town hall.
 */
import { greatCircleKm, type PropertyDocument } from '@immo/contracts';
import type { PropertyCriteria } from './criteria';
import { isPointInRing } from './point-in-polygon';

type GeoCriteria = Pick<PropertyCriteria, 'point' | 'radiusKm' | 'geoShapes'>;

export function matchesGeo(criteria: GeoCriteria, doc: PropertyDocument): boolean {
  return matchesRadius(criteria, doc) && matchesShapes(criteria, doc);
}

function matchesRadius({ point, radiusKm }: GeoCriteria, doc: PropertyDocument): boolean {
  if (point === undefined || radiusKm === undefined) return true;
  return doc.locations !== null && greatCircleKm(point, doc.locations) <= radiusKm;
}

function matchesShapes({ geoShapes }: GeoCriteria, doc: PropertyDocument): boolean {
  if (geoShapes.length === 0) return true;
  const location = doc.locations;
  if (location === null) return false;
  return geoShapes.some((ring) => isPointInRing([location.lon, location.lat], ring));
}
