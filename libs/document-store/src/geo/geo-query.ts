/**
 * MongoDB geo query semantics for in-memory evaluation: parsing of `$geoWithin` shapes and of
 * `$nearSphere` / `$near`, and a normalisation pass that folds the legacy sibling distance
 * options into the operator so that it can be evaluated on its own.
 */
import type { Filter } from '../document-store.port';
import { isPlainObject, splitPath, walkPath } from '../document-paths';
import {
  type LonLat,
  haversineMetres,
  haversineRadians,
  planarDistance,
  pointInBox,
  pointInPolygon,
  pointInRing,
  radiansToMetres,
} from './geo-math';

export class GeoQueryError extends Error {
  override readonly name = 'GeoQueryError';
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** `[x, y]` or `[x, y, z]`: a legacy coordinate pair (extra members are ignored like MongoDB does). */
function asPair(value: unknown): LonLat | null {
  if (Array.isArray(value) && value.length >= 2 && isFiniteNumber(value[0]) && isFiniteNumber(value[1])) {
    return [value[0], value[1]];
  }
  return null;
}

/** Legacy points may also be embedded documents such as `{ lng, lat }`: the first two values. */
function asLegacyPoint(value: unknown): LonLat | null {
  const pair = asPair(value);
  if (pair) return pair;
  if (isPlainObject(value) && !('type' in value)) {
    const values = Object.values(value);
    if (values.length >= 2 && isFiniteNumber(values[0]) && isFiniteNumber(values[1])) return [values[0], values[1]];
  }
  return null;
}

function isGeoJson(value: unknown): value is Record<string, unknown> & { type: string } {
  return isPlainObject(value) && typeof value['type'] === 'string';
}

/** Nesting depth of `coordinates` for each GeoJSON geometry type. */
const COORDINATE_DEPTH: Record<string, number> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
};

function geoJsonVertices(geometry: Record<string, unknown>): LonLat[] | null {
  const coordinates = geometry['coordinates'];
  const collect = (node: unknown, depth: number, out: LonLat[]): boolean => {
    if (depth === 0) {
      const pair = asPair(node);
      if (!pair) return false;
      out.push(pair);
      return true;
    }
    if (!Array.isArray(node)) return false;
    return node.every((child) => collect(child, depth - 1, out));
  };
  if (geometry['type'] === 'GeometryCollection') {
    const members = geometry['geometries'];
    if (!Array.isArray(members)) return null;
    const out: LonLat[] = [];
    for (const member of members) {
      const vertices = isGeoJson(member) ? geoJsonVertices(member) : null;
      if (!vertices) return null;
      out.push(...vertices);
    }
    return out;
  }
  const depth = COORDINATE_DEPTH[geometry['type'] as string];
  if (depth === undefined) return null;
  const out: LonLat[] = [];
  return collect(coordinates, depth, out) ? out : null;
}

interface StoredShape {
  /** GeoJSON objects only match spherical query shapes; legacy pairs match both kinds. */
  geoJson: boolean;
  vertices: LonLat[];
}

/** Geometries stored at one path value; an array of points or shapes gives one entry each. */
export function storedShapes(leaf: unknown, out: StoredShape[] = []): StoredShape[] {
  if (isGeoJson(leaf)) {
    const vertices = geoJsonVertices(leaf);
    if (vertices && vertices.length > 0) out.push({ geoJson: true, vertices });
    return out;
  }
  const legacy = asLegacyPoint(leaf);
  if (legacy) {
    out.push({ geoJson: false, vertices: [legacy] });
    return out;
  }
  if (Array.isArray(leaf)) {
    for (const element of leaf) {
      if (isGeoJson(element)) storedShapes(element, out);
      else {
        const point = asLegacyPoint(element);
        if (point) out.push({ geoJson: false, vertices: [point] });
      }
    }
  }
  return out;
}

/**
 * The common case, a GeoJSON point reached through plain objects, read without allocating;
 * null when the value has any other shape (arrays, legacy pairs, other geometries...).
 */
function simpleGeoJsonPoint(doc: unknown, parts: readonly string[]): LonLat | null {
  let value: unknown = doc;
  for (const part of parts) {
    if (!isPlainObject(value)) return null;
    value = value[part];
  }
  if (!isPlainObject(value) || value['type'] !== 'Point') return null;
  const coordinates = value['coordinates'];
  if (!Array.isArray(coordinates) || coordinates.length < 2) return null;
  const [lon, lat] = coordinates as unknown[];
  return isFiniteNumber(lon) && isFiniteNumber(lat) ? (coordinates as unknown as LonLat) : null;
}

function collectShapes(doc: unknown, parts: readonly string[]): StoredShape[] {
  const shapes: StoredShape[] = [];
  walkPath(doc, parts, (leaf) => {
    if (leaf !== undefined && leaf !== null) storedShapes(leaf, shapes);
  });
  return shapes;
}

type PointTest = (p: LonLat) => boolean;

interface WithinShape {
  /** Planar legacy shapes (`$box`, `$polygon`, `$center`) do not match GeoJSON objects. */
  legacyOnly: boolean;
  contains: PointTest;
}

function pairList(value: unknown, what: string, min: number): LonLat[] {
  if (!Array.isArray(value)) throw new GeoQueryError(`${what} must be an array of [x, y] pairs`);
  const pairs = value.map((v) => asLegacyPoint(v));
  if (pairs.some((p) => p === null) || pairs.length < min) {
    throw new GeoQueryError(`${what} needs at least ${min} [x, y] pairs`);
  }
  return pairs as LonLat[];
}

function polygonRings(value: unknown, what: string): LonLat[][] {
  if (!Array.isArray(value) || value.length === 0) throw new GeoQueryError(`${what} needs at least one ring`);
  return value.map((ring) => pairList(ring, `${what} ring`, 4));
}

function parseWithin(spec: unknown): WithinShape {
  if (!isPlainObject(spec)) throw new GeoQueryError('$geoWithin expects a shape document');
  if ('$centerSphere' in spec) {
    const value = spec['$centerSphere'];
    const center = Array.isArray(value) ? asLegacyPoint(value[0]) : null;
    const radius = Array.isArray(value) ? value[1] : undefined;
    if (!center || !isFiniteNumber(radius) || radius < 0) {
      throw new GeoQueryError('$centerSphere expects [[lon, lat], radiusInRadians]');
    }
    // A relative tolerance keeps points on the circle inside despite rounding.
    const limit = radius * (1 + 1e-12);
    return { legacyOnly: false, contains: (p) => haversineRadians(center, p) <= limit };
  }
  if ('$center' in spec) {
    const value = spec['$center'];
    const center = Array.isArray(value) ? asLegacyPoint(value[0]) : null;
    const radius = Array.isArray(value) ? value[1] : undefined;
    if (!center || !isFiniteNumber(radius) || radius < 0) throw new GeoQueryError('$center expects [[x, y], radius]');
    return { legacyOnly: true, contains: (p) => planarDistance(center, p) <= radius };
  }
  if ('$box' in spec) {
    const [a, b] = pairList(spec['$box'], '$box', 2) as [LonLat, LonLat];
    return { legacyOnly: true, contains: (p) => pointInBox(p, a, b) };
  }
  if ('$polygon' in spec) {
    const ring = pairList(spec['$polygon'], '$polygon', 3);
    return { legacyOnly: true, contains: (p) => pointInRing(p, ring) };
  }
  if ('$geometry' in spec) {
    const geometry = spec['$geometry'];
    if (!isGeoJson(geometry)) throw new GeoQueryError('$geometry expects a GeoJSON object');
    if (geometry.type === 'Polygon') {
      const rings = polygonRings(geometry['coordinates'], 'Polygon');
      return { legacyOnly: false, contains: (p) => pointInPolygon(p, rings) };
    }
    if (geometry.type === 'MultiPolygon') {
      const coordinates = geometry['coordinates'];
      if (!Array.isArray(coordinates)) throw new GeoQueryError('MultiPolygon expects an array of polygons');
      const polygons = coordinates.map((polygon) => polygonRings(polygon, 'MultiPolygon polygon'));
      return { legacyOnly: false, contains: (p) => polygons.some((rings) => pointInPolygon(p, rings)) };
    }
    throw new GeoQueryError(`$geoWithin $geometry must be a Polygon or MultiPolygon, not ${geometry.type}`);
  }
  throw new GeoQueryError('$geoWithin expects $centerSphere, $center, $box, $polygon or $geometry');
}

/** Compiles a `$geoWithin` value into a test on a document's value at the queried path. */
export function compileGeoWithin(spec: unknown): (leaf: unknown) => boolean {
  return leafTest(parseWithin(spec));
}

function leafTest(shape: WithinShape): (leaf: unknown) => boolean {
  return (leaf) =>
    storedShapes(leaf).some(
      (stored) => !(shape.legacyOnly && stored.geoJson) && stored.vertices.every((v) => shape.contains(v)),
    );
}

/** A `$nearSphere` after normalisation: distances in metres. */
export interface NearSpec {
  center: LonLat;
  minDistance: number;
  maxDistance: number;
}

function optionalDistance(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!isFiniteNumber(value) || value < 0) throw new GeoQueryError(`${name} must be a non-negative number`);
  return value;
}

function geoJsonPoint(value: unknown): LonLat | null {
  if (!isGeoJson(value) || value.type !== 'Point') return null;
  return asPair(value['coordinates']);
}

/**
 * Reads either form of `$nearSphere`: `{ $geometry: Point, $minDistance?, $maxDistance? }` in
 * metres, or a legacy point whose sibling `$minDistance` / `$maxDistance` are in radians.
 */
export function parseNear(operator: '$nearSphere' | '$near', value: unknown, siblings: Record<string, unknown> = {}): NearSpec {
  if (isPlainObject(value) && '$geometry' in value) {
    const center = geoJsonPoint(value['$geometry']);
    if (!center) throw new GeoQueryError(`${operator} $geometry must be a GeoJSON Point`);
    const min = optionalDistance(value['$minDistance'] ?? siblings['$minDistance'], '$minDistance');
    const max = optionalDistance(value['$maxDistance'] ?? siblings['$maxDistance'], '$maxDistance');
    return { center, minDistance: min ?? 0, maxDistance: max ?? Number.POSITIVE_INFINITY };
  }
  if (operator === '$near') {
    // Legacy $near is planar and needs a 2d index in MongoDB; nothing here relies on it.
    throw new GeoQueryError('$near is only supported with a GeoJSON $geometry point; use $nearSphere');
  }
  const center = asLegacyPoint(value);
  if (!center) throw new GeoQueryError('$nearSphere expects a $geometry point or a legacy [lon, lat] pair');
  const min = optionalDistance(siblings['$minDistance'], '$minDistance');
  const max = optionalDistance(siblings['$maxDistance'], '$maxDistance');
  return {
    center,
    minDistance: min === undefined ? 0 : radiansToMetres(min),
    maxDistance: max === undefined ? Number.POSITIVE_INFINITY : radiansToMetres(max),
  };
}

/** The normalised operator value: always the GeoJSON form with distances in metres. */
export function nearSpecToOperator(spec: NearSpec): Record<string, unknown> {
  const value: Record<string, unknown> = { $geometry: { type: 'Point', coordinates: [spec.center[0], spec.center[1]] } };
  if (spec.minDistance > 0) value['$minDistance'] = spec.minDistance;
  if (Number.isFinite(spec.maxDistance)) value['$maxDistance'] = spec.maxDistance;
  return value;
}

/** Smallest distance in metres from the centre to any point stored at the path, or null. */
export function nearestDistance(doc: unknown, parts: readonly string[], center: LonLat): number | null {
  const point = simpleGeoJsonPoint(doc, parts);
  if (point) return haversineMetres(center, point);
  let best: number | null = null;
  for (const shape of collectShapes(doc, parts)) {
    for (const vertex of shape.vertices) {
      const d = haversineMetres(center, vertex);
      if (best === null || d < best) best = d;
    }
  }
  return best;
}

/** Compiles a normalised `$nearSphere` value into a distance filter on a document. */
export function compileNear(operator: '$nearSphere' | '$near', path: string, value: unknown): (doc: unknown) => boolean {
  const spec = parseNear(operator, value);
  const parts = splitPath(path);
  const limit = spec.maxDistance * (1 + 1e-12);
  return (doc) => {
    const d = nearestDistance(doc, parts, spec.center);
    return d !== null && d >= spec.minDistance && d <= limit;
  };
}

/** Compiles `$geoWithin` against a document for the given path. */
export function compileGeoWithinAt(path: string, value: unknown): (doc: unknown) => boolean {
  const shape = parseWithin(value);
  const test = leafTest(shape);
  const parts = splitPath(path);
  return (doc) => {
    const point = simpleGeoJsonPoint(doc, parts);
    if (point) return !shape.legacyOnly && shape.contains(point);
    let found = false;
    walkPath(doc, parts, (leaf) => {
      if (!found && leaf !== undefined && leaf !== null && test(leaf)) found = true;
    });
    return found;
  };
}

export interface NearQuery extends NearSpec {
  path: string;
}

export interface NormalizedGeoFilter {
  filter: Filter;
  /** The `$nearSphere` that orders results, when the filter has one where MongoDB allows it. */
  near: NearQuery | null;
}

const NEAR_OPERATORS = ['$nearSphere', '$near'] as const;

function isOperatorDocument(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$');
}

/**
 * Rewrites every `$nearSphere` / `$near` into `{ $nearSphere: { $geometry, $minDistance?,
 * $maxDistance? } }` (metres) and reports the one that orders the results. Filters without geo
 * operators come back as they are.
 */
export function normalizeGeoFilter(filter: Filter): NormalizedGeoFilter {
  const found: NearQuery[] = [];
  const normalized = normalizeLevel(filter, found, true);
  if (found.length > 1) throw new GeoQueryError('only one $nearSphere / $near expression is allowed per query');
  return { filter: normalized, near: found[0] ?? null };
}

function normalizeLevel(filter: Filter, found: NearQuery[], orderingAllowed: boolean): Filter {
  let out: Filter | null = null;
  const set = (key: string, value: unknown): void => {
    out ??= { ...filter };
    out[key] = value;
  };
  for (const [key, value] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
      const allowed = orderingAllowed && key === '$and';
      const mapped = value.map((sub: unknown) => (isPlainObject(sub) ? normalizeLevel(sub, found, allowed) : sub));
      if (mapped.some((sub, i) => sub !== value[i])) set(key, mapped);
      continue;
    }
    if (key.startsWith('$') || !isOperatorDocument(value)) continue;
    const operator = NEAR_OPERATORS.find((op) => op in value);
    if (!operator) continue;
    const spec = parseNear(operator, value[operator], value);
    const rest: Record<string, unknown> = {};
    for (const [op, operand] of Object.entries(value)) {
      if (op !== operator && op !== '$minDistance' && op !== '$maxDistance') rest[op] = operand;
    }
    set(key, { ...rest, $nearSphere: nearSpecToOperator(spec) });
    // MongoDB rejects them under $or / $nor too: the result order would be undefined.
    if (!orderingAllowed) {
      throw new GeoQueryError('$nearSphere / $near is only allowed at the top level of a filter or in a top-level $and');
    }
    found.push({ path: key, ...spec });
  }
  return out ?? filter;
}
