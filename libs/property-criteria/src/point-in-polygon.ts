/**
 * Point in a closed ring by ray casting (even-odd rule), in plain longitude/latitude degrees.
 *
 * Planar degrees are exact enough for the areas people draw on a map of France (a few kilometres
 * to a region): the error of treating meridians as parallel lines is far below the precision of a
 * hand-drawn edge. Rings crossing the antimeridian are not supported (no French area does, even
 * overseas). `@turf/boolean-point-in-polygon` is not installed and this is all it would be used for.
 *
 * A point lying exactly on an edge or a vertex counts as inside, so that the result does not depend
 * on floating-point luck and a search index can reproduce it.
 */
import type { Position, Ring } from './criteria';

export function isPointInRing(point: Position, ring: Ring): boolean {
  const [x, y] = point;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as Position;
    const [xj, yj] = ring[j] as Position;
    if (isOnSegment(point, [xi, yi], [xj, yj])) return true;
    // The edge straddles the horizontal line through the point (one end strictly above, the other
    // not), and crosses it to the right of the point: the ray to +x crosses one more edge.
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function isOnSegment([x, y]: Position, [x1, y1]: Position, [x2, y2]: Position): boolean {
  const cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
  if (cross !== 0) return false;
  return x >= Math.min(x1, x2) && x <= Math.max(x1, x2) && y >= Math.min(y1, y2) && y <= Math.max(y1, y2);
}
