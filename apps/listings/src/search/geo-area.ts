/**
 * Boxes that contain every point the geo filters can accept, for the grid to gather candidates;
 * the candidates are then tested with the library's own distance and point-in-ring functions, so
 * the boxes only need to be large enough, never exact. A box wrapping past the antimeridian or a
 * pole covers every longitude: slower, still correct, and no French search does it.
 */
import { MEAN_EARTH_RADIUS_KM, type LatLon } from '@immo/contracts';
import type { Ring } from '@immo/property-criteria';
import type { LatLonBox } from './geo-grid';

const DEGREES_PER_RADIAN = 180 / Math.PI;
/** Covers the rounding of the exact tests (far below a millimetre). */
const MARGIN_DEGREES = 1e-6;
const WORLD: LatLonBox = { south: -90, north: 90, west: -180, east: 180 };

/** Every point within `radiusKm` (great-circle) of the centre. */
export function radiusBox(center: LatLon, radiusKm: number): LatLonBox {
  const angle = radiusKm / MEAN_EARTH_RADIUS_KM;
  if (!(angle < Math.PI / 2)) return WORLD;
  const latSpan = angle * DEGREES_PER_RADIAN * (1 + 1e-9) + MARGIN_DEGREES;
  const south = center.lat - latSpan;
  const north = center.lat + latSpan;
  if (south <= -90 || north >= 90) return { south, north, west: -180, east: 180 };
  // Widest longitude of a spherical cap that contains no pole.
  const sine = Math.sin(angle) / Math.cos((center.lat * Math.PI) / 180);
  if (!(sine < 1)) return { south, north, west: -180, east: 180 };
  const lonSpan = Math.asin(sine) * DEGREES_PER_RADIAN * (1 + 1e-9) + MARGIN_DEGREES;
  const west = center.lon - lonSpan;
  const east = center.lon + lonSpan;
  if (west < -180 || east > 180) return { south, north, west: -180, east: 180 };
  return { south, north, west, east };
}

/** The ring's bounding box: a point on an edge or inside lies within it. */
export function ringBox(ring: Ring): LatLonBox {
  let south = Infinity;
  let north = -Infinity;
  let west = Infinity;
  let east = -Infinity;
  for (const [lon, lat] of ring) {
    south = Math.min(south, lat);
    north = Math.max(north, lat);
    west = Math.min(west, lon);
    east = Math.max(east, lon);
  }
  return { south: south - MARGIN_DEGREES, north: north + MARGIN_DEGREES, west: west - MARGIN_DEGREES, east: east + MARGIN_DEGREES };
}
