/**
 * The one distance the product measures between two places (geo lookups, POI and station radii,
 * property grouping). Read-model geo queries are another matter: the document store keeps
 * MongoDB's own radius so that its radians match `$centerSphere` (see its geo-math).
 */

/** A point in degrees. */
export interface LatLon {
  lat: number;
  lon: number;
}

/** Mean Earth radius (IUGG arithmetic mean R1), the sphere that best fits the ellipsoid on average. */
export const MEAN_EARTH_RADIUS_KM = 6371.0088;

const DEG = Math.PI / 180;

/** Great-circle distance in kilometres on a sphere of MEAN_EARTH_RADIUS_KM (haversine formula). */
export function greatCircleKm(a: LatLon, b: LatLon): number {
  const dLat = (b.lat - a.lat) * DEG;
  const dLon = (b.lon - a.lon) * DEG;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * DEG) * Math.cos(b.lat * DEG) * Math.sin(dLon / 2) ** 2;
  // Rounding can push h a hair above 1 for antipodal points; asin would then answer NaN.
  return 2 * MEAN_EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** {@link greatCircleKm} in metres. */
export function greatCircleMetres(a: LatLon, b: LatLon): number {
  return greatCircleKm(a, b) * 1000;
}
