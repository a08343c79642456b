/** Small spherical helpers shared by the directory, the POI generator and the station index. */
import { greatCircleKm, MEAN_EARTH_RADIUS_KM, type LatLon } from '@immo/contracts';

export type { LatLon };

/** [west, south, east, north] in degrees, as published by @etalab/fr-bounding-boxes. */
export type BBox = readonly [number, number, number, number];

const DEG = Math.PI / 180;

/** The product's one distance (@immo/contracts), on the mean Earth radius. */
export const haversineKm = greatCircleKm;

/** Degrees of latitude spanned by `km` (constant on a sphere). */
export function kmToLatDegrees(km: number): number {
  return km / (MEAN_EARTH_RADIUS_KM * DEG);
}

/**
 * Degrees of longitude spanned by `km` at `lat`. Near the poles the cosine tends to zero, so it is
 * floored to keep the result finite; no French commune is close enough for this to matter.
 */
export function kmToLonDegrees(km: number, lat: number): number {
  return km / (MEAN_EARTH_RADIUS_KM * DEG * Math.max(0.01, Math.cos(lat * DEG)));
}

/** Box around a circle, good enough to pick candidates before an exact distance test. */
export function bboxAround(centre: LatLon, radiusKm: number): BBox {
  const dLat = kmToLatDegrees(radiusKm);
  const dLon = kmToLonDegrees(radiusKm, Math.abs(centre.lat) + dLat);
  return [centre.lon - dLon, centre.lat - dLat, centre.lon + dLon, centre.lat + dLat];
}

export function bboxCentre(bbox: BBox): LatLon {
  return { lat: (bbox[1] + bbox[3]) / 2, lon: (bbox[0] + bbox[2]) / 2 };
}

export function bboxContains(bbox: BBox, point: LatLon, marginDegrees = 0): boolean {
  return (
    point.lon >= bbox[0] - marginDegrees &&
    point.lon <= bbox[2] + marginDegrees &&
    point.lat >= bbox[1] - marginDegrees &&
    point.lat <= bbox[3] + marginDegrees
  );
}

export function bboxUnion(boxes: ReadonlyArray<BBox>): BBox | null {
  const [first, ...rest] = boxes;
  if (first === undefined) return null;
  let [west, south, east, north] = first;
  for (const box of rest) {
    west = Math.min(west, box[0]);
    south = Math.min(south, box[1]);
    east = Math.max(east, box[2]);
    north = Math.max(north, box[3]);
  }
  return [west, south, east, north];
}

export function bboxOfPoints(points: ReadonlyArray<LatLon>): BBox | null {
  return bboxUnion(points.map((p) => [p.lon, p.lat, p.lon, p.lat] as const));
}

/**
 * Even-odd ray casting in plain lat/lon. City-sized polygons are small enough that treating
 * degrees as planar coordinates does not move any commune point across an edge in practice.
 */
export function pointInPolygon(point: LatLon, polygon: ReadonlyArray<LatLon>): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const a = polygon[i];
    const b = polygon[j];
    if (a === undefined || b === undefined) continue;
    const crosses = a.lat > point.lat !== b.lat > point.lat;
    if (crosses && point.lon < ((b.lon - a.lon) * (point.lat - a.lat)) / (b.lat - a.lat) + a.lon) inside = !inside;
  }
  return inside;
}

export function isValidLatLon(lat: number, lon: number): boolean {
  return Number.isFinite(lat) && Number.isFinite(lon) && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}
