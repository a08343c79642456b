/**
 * `geoShapes[<shape>][<point>][0|1]`: areas drawn on a map, each a closed ring of `[lon, lat]`
 * points (GeoJSON order). The ring repeats its first point at the end, so a triangle has 4 points;
 * several shapes form a union. Sizes were checked before (see size-limits.ts).
 */
import type { Violation } from '@immo/contracts';
import type { Position, Ring } from './criteria';
import { isContainer, listItems } from './list-items';
import { isBlank, numberValue, readValue } from './query-values';

/** Three corners and the repeated first one. */
export const MIN_RING_POSITIONS = 4;

export interface ParsedGeoShapes {
  shapes: Ring[];
  violations: Violation[];
}

export function parseGeoShapes(raw: unknown, path = 'geoShapes'): ParsedGeoShapes {
  const violations: Violation[] = [];
  const shapes: Ring[] = [];
  if (isBlank(raw)) return { shapes, violations };
  if (!isContainer(raw)) return { shapes, violations: [{ propertyPath: path, message: `must be given as ${path}[<shape>][<point>][0|1]=<lon|lat>` }] };
  const shapeItems = listItems(raw, path);
  if (!shapeItems.ok) return { shapes, violations: [{ propertyPath: path, message: shapeItems.message }] };
  for (const shapeItem of shapeItems.value) {
    const ring = parseRing(shapeItem.value, shapeItem.path, violations);
    if (ring !== undefined) shapes.push(ring);
  }
  return { shapes, violations };
}

function parseRing(raw: unknown, path: string, violations: Violation[]): Ring | undefined {
  if (!isContainer(raw)) {
    violations.push({ propertyPath: path, message: `must be a list of points such as ${path}[0][0]=<lon>&${path}[0][1]=<lat>` });
    return undefined;
  }
  const pointItems = listItems(raw, path);
  if (!pointItems.ok) {
    violations.push({ propertyPath: path, message: pointItems.message });
    return undefined;
  }
  const before = violations.length;
  const ring: Ring = [];
  for (const item of pointItems.value) {
    const position = parsePosition(item.value, item.path, violations);
    if (position !== undefined) ring.push(position);
  }
  if (violations.length > before) return undefined;
  if (ring.length < MIN_RING_POSITIONS) {
    violations.push({ propertyPath: path, message: `must have at least ${MIN_RING_POSITIONS} points, the last repeating the first` });
    return undefined;
  }
  const first = ring[0] as Position;
  const last = ring[ring.length - 1] as Position;
  if (first[0] !== last[0] || first[1] !== last[1]) {
    violations.push({ propertyPath: path, message: 'must be a closed ring: its last point must repeat its first point' });
    return undefined;
  }
  return ring;
}

function parsePosition(raw: unknown, path: string, violations: Violation[]): Position | undefined {
  const coordinates = listItems(raw, path);
  if (!isContainer(raw) || !coordinates.ok || coordinates.value.length !== 2) {
    violations.push({ propertyPath: path, message: `must be a point given as ${path}[0]=<lon> and ${path}[1]=<lat>` });
    return undefined;
  }
  const [lonItem, latItem] = coordinates.value as [{ value: unknown; path: string }, { value: unknown; path: string }];
  const lon = readCoordinate(lonItem.value, lonItem.path, 180, violations);
  const lat = readCoordinate(latItem.value, latItem.path, 90, violations);
  if (lon === undefined || lat === undefined) return undefined;
  return [lon, lat];
}

function readCoordinate(raw: unknown, path: string, limit: number, violations: Violation[]): number | undefined {
  const value = readValue(numberValue, raw);
  if (!value.ok) {
    violations.push({ propertyPath: path, message: value.message });
    return undefined;
  }
  if (Math.abs(value.value) > limit) {
    violations.push({ propertyPath: path, message: `must be between -${limit} and ${limit}` });
    return undefined;
  }
  return value.value;
}
