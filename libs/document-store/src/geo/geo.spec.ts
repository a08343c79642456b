import {
  EARTH_RADIUS_METRES,
  type LonLat,
  haversineMetres,
  haversineRadians,
  metresToRadians,
  pointInPolygon,
  pointInRing,
} from './geo-math';
import { GeoQueryError, compileGeoWithin, normalizeGeoFilter, parseNear } from './geo-query';

const NOTRE_DAME: LonLat = [2.3499, 48.853];
const VERSAILLES: LonLat = [2.1301, 48.8049];

describe('geo math', () => {
  it('measures great-circle distances with MongoDB’s earth radius', () => {
    expect(EARTH_RADIUS_METRES).toBe(6_378_100);
    // One degree along a meridian is R·π/180 whatever the longitude.
    expect(haversineMetres([5, 10], [5, 11])).toBeCloseTo((EARTH_RADIUS_METRES * Math.PI) / 180, 6);
    expect(haversineMetres(NOTRE_DAME, NOTRE_DAME)).toBe(0);
    expect(haversineMetres(NOTRE_DAME, VERSAILLES)).toBeCloseTo(haversineMetres(VERSAILLES, NOTRE_DAME), 9);
    expect(haversineMetres(NOTRE_DAME, VERSAILLES)).toBeGreaterThan(16_000);
    expect(haversineMetres(NOTRE_DAME, VERSAILLES)).toBeLessThan(18_000);
    expect(haversineRadians([0, 0], [180, 0])).toBeCloseTo(Math.PI, 12);
    expect(metresToRadians(EARTH_RADIUS_METRES)).toBe(1);
  });

  it('tells points inside, outside and on the border of rings', () => {
    const square: LonLat[] = [
      [0, 0],
      [4, 0],
      [4, 4],
      [0, 4],
    ];
    expect(pointInRing([2, 2], square)).toBe(true);
    expect(pointInRing([5, 2], square)).toBe(false);
    expect(pointInRing([4, 2], square)).toBe(true);
    expect(pointInRing([0, 0], square)).toBe(true);
    const concave: LonLat[] = [
      [0, 0],
      [4, 0],
      [4, 4],
      [2, 1],
      [0, 4],
    ];
    expect(pointInRing([2, 3], concave)).toBe(false);
    expect(pointInRing([1, 1], concave)).toBe(true);
  });

  it('excludes holes but keeps their border', () => {
    const outer: LonLat[] = [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
      [0, 0],
    ];
    const hole: LonLat[] = [
      [4, 4],
      [6, 4],
      [6, 6],
      [4, 6],
      [4, 4],
    ];
    expect(pointInPolygon([5, 5], [outer, hole])).toBe(false);
    expect(pointInPolygon([2, 2], [outer, hole])).toBe(true);
    expect(pointInPolygon([4, 5], [outer, hole])).toBe(true);
    expect(pointInPolygon([11, 5], [outer, hole])).toBe(false);
  });
});

describe('geo queries', () => {
  it('matches $centerSphere on GeoJSON points and legacy pairs', () => {
    const within2km = compileGeoWithin({ $centerSphere: [[2.3522, 48.8566], metresToRadians(2000)] });
    expect(within2km({ type: 'Point', coordinates: NOTRE_DAME })).toBe(true);
    expect(within2km([...NOTRE_DAME])).toBe(true);
    expect(within2km({ type: 'Point', coordinates: VERSAILLES })).toBe(false);
    expect(within2km(null)).toBe(false);
    expect(within2km('not a point')).toBe(false);
  });

  it('limits planar legacy shapes to legacy points', () => {
    const box = compileGeoWithin({ $box: [[0, 0], [2, 2]] });
    expect(box([1, 1])).toBe(true);
    expect(box({ x: 1, y: 1 })).toBe(true);
    expect(box({ type: 'Point', coordinates: [1, 1] })).toBe(false);
    const polygon = compileGeoWithin({ $polygon: [[0, 0], [2, 0], [1, 2]] });
    expect(polygon([1, 1])).toBe(true);
    expect(polygon([1.9, 1.9])).toBe(false);
  });

  it('requires every vertex of a stored shape to be inside', () => {
    const square = compileGeoWithin({
      $geometry: { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]] },
    });
    expect(square({ type: 'LineString', coordinates: [[1, 1], [2, 2]] })).toBe(true);
    expect(square({ type: 'LineString', coordinates: [[1, 1], [5, 5]] })).toBe(false);
  });

  it('rejects malformed shapes with a GeoQueryError', () => {
    expect(() => compileGeoWithin({ $centerSphere: [[0, 0]] })).toThrow(GeoQueryError);
    expect(() => compileGeoWithin({ $polygon: [[0, 0], [1, 1]] })).toThrow(GeoQueryError);
    expect(() => compileGeoWithin({ $geometry: { type: 'Point', coordinates: [0, 0] } })).toThrow(GeoQueryError);
    expect(() => compileGeoWithin({ $unknown: 1 })).toThrow(GeoQueryError);
  });

  it('reads both $nearSphere forms into metres', () => {
    expect(parseNear('$nearSphere', { $geometry: { type: 'Point', coordinates: [1, 2] }, $maxDistance: 500 })).toEqual({
      center: [1, 2],
      minDistance: 0,
      maxDistance: 500,
    });
    expect(parseNear('$nearSphere', [1, 2], { $maxDistance: 0.001, $minDistance: 0.0005 })).toEqual({
      center: [1, 2],
      minDistance: 0.0005 * EARTH_RADIUS_METRES,
      maxDistance: 0.001 * EARTH_RADIUS_METRES,
    });
    expect(() => parseNear('$nearSphere', { $geometry: { type: 'Point', coordinates: [1, 2] }, $maxDistance: -1 })).toThrow(
      GeoQueryError,
    );
  });

  it('normalises $nearSphere filters and reports the ordering one', () => {
    const legacy = normalizeGeoFilter({ kind: 'house', loc: { $nearSphere: [1, 2], $maxDistance: 0.001 } });
    expect(legacy.filter).toEqual({
      kind: 'house',
      loc: { $nearSphere: { $geometry: { type: 'Point', coordinates: [1, 2] }, $maxDistance: 0.001 * EARTH_RADIUS_METRES } },
    });
    expect(legacy.near).toEqual({ path: 'loc', center: [1, 2], minDistance: 0, maxDistance: 0.001 * EARTH_RADIUS_METRES });

    const inAnd = normalizeGeoFilter({ $and: [{ loc: { $near: { $geometry: { type: 'Point', coordinates: [3, 4] } } } }] });
    expect(inAnd.near?.center).toEqual([3, 4]);

    const plain = { kind: 'house', price: { $lt: 3 } };
    expect(normalizeGeoFilter(plain)).toEqual({ filter: plain, near: null });
    expect(normalizeGeoFilter(plain).filter).toBe(plain);

    expect(() => normalizeGeoFilter({ $or: [{ loc: { $nearSphere: [1, 2] } }] })).toThrow(GeoQueryError);
    expect(() => normalizeGeoFilter({ a: { $nearSphere: [1, 2] }, b: { $nearSphere: [1, 2] } })).toThrow(/only one/);
  });
});
