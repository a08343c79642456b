/**
 * Plain geometry used by the geo query operators. Coordinates are `[longitude, latitude]` in
 * degrees, as in GeoJSON and MongoDB legacy pairs.
 */

export type LonLat = readonly [number, number];

/**
 * MongoDB converts between radians and metres with this equatorial radius (6378.1 km), so the
 * embedded store's `$centerSphere` / `$nearSphere` radians and distances match what MongoDB
 * answers. It deliberately differs from the product's own distance (`greatCircleKm` in
 * @immo/contracts, mean radius 6371.0088 km): callers that convert metres to radians for a
 * query must use this one, or the two stores would disagree by about 0.1 %.
 */
export const EARTH_RADIUS_METRES = 6_378_100;

const DEG_TO_RAD = Math.PI / 180;

/** Great-circle angle between two points, in radians (haversine formula). */
export function haversineRadians(a: LonLat, b: LonLat): number {
  const lat1 = a[1] * DEG_TO_RAD;
  const lat2 = b[1] * DEG_TO_RAD;
  const dLat = lat2 - lat1;
  const dLon = (b[0] - a[0]) * DEG_TO_RAD;
  const sinLat = Math.sin(dLat / 2);
  const sinLon = Math.sin(dLon / 2);
  const h = sinLat * sinLat + Math.cos(lat1) * Math.cos(lat2) * sinLon * sinLon;
  // Rounding can push h a hair above 1 for antipodal points; asin would then answer NaN.
  return 2 * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** Great-circle distance in metres on a sphere of {@link EARTH_RADIUS_METRES}. */
export function haversineMetres(a: LonLat, b: LonLat): number {
  return haversineRadians(a, b) * EARTH_RADIUS_METRES;
}

export function metresToRadians(metres: number): number {
  return metres / EARTH_RADIUS_METRES;
}

export function radiansToMetres(radians: number): number {
  return radians * EARTH_RADIUS_METRES;
}

/** Planar (Euclidean) distance, as MongoDB's legacy `$center` uses. */
export function planarDistance(a: LonLat, b: LonLat): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

// Tolerance in coordinate units so that points exactly on an edge count as inside: MongoDB
// treats the border of a shape as part of it, within floating point precision.
const EDGE_EPSILON = 1e-12;

function onSegment(p: LonLat, a: LonLat, b: LonLat): boolean {
  const cross = (p[0] - a[0]) * (b[1] - a[1]) - (p[1] - a[1]) * (b[0] - a[0]);
  const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
  if (Math.abs(cross) > EDGE_EPSILON * Math.max(1, length)) return false;
  return (
    p[0] >= Math.min(a[0], b[0]) - EDGE_EPSILON &&
    p[0] <= Math.max(a[0], b[0]) + EDGE_EPSILON &&
    p[1] >= Math.min(a[1], b[1]) - EDGE_EPSILON &&
    p[1] <= Math.max(a[1], b[1]) + EDGE_EPSILON
  );
}

/**
 * Whether a point lies inside or on a ring (planar ray casting). The ring may be open or closed
 * (GeoJSON repeats the first vertex last; legacy `$polygon` does not).
 */
export function pointInRing(p: LonLat, ring: readonly LonLat[]): boolean {
  const n = ring.length;
  if (n < 3) return false;
  let inside = false;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = ring[i] as LonLat;
    const b = ring[j] as LonLat;
    if (onSegment(p, a, b)) return true;
    if (a[1] > p[1] !== b[1] > p[1]) {
      const xCross = ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0];
      if (p[0] < xCross) inside = !inside;
    }
  }
  return inside;
}

/** GeoJSON polygon semantics: inside the exterior ring (first) and not strictly inside a hole. */
export function pointInPolygon(p: LonLat, rings: readonly (readonly LonLat[])[]): boolean {
  const [exterior, ...holes] = rings;
  if (!exterior || !pointInRing(p, exterior)) return false;
  for (const hole of holes) {
    if (pointInRing(p, hole) && !ringBorderContains(hole, p)) return false;
  }
  return true;
}

function ringBorderContains(ring: readonly LonLat[], p: LonLat): boolean {
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    if (onSegment(p, ring[i] as LonLat, ring[j] as LonLat)) return true;
  }
  return false;
}

export function pointInBox(p: LonLat, corner1: LonLat, corner2: LonLat): boolean {
  return (
    p[0] >= Math.min(corner1[0], corner2[0]) &&
    p[0] <= Math.max(corner1[0], corner2[0]) &&
    p[1] >= Math.min(corner1[1], corner2[1]) &&
    p[1] <= Math.max(corner1[1], corner2[1])
  );
}
