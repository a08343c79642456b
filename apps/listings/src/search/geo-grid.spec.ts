import fc from 'fast-check';
import { greatCircleKm } from '@immo/contracts';
import { isPointInRing, type Ring } from '@immo/property-criteria';
import { Bitset } from './bitset';
import { radiusBox, ringBox } from './geo-area';
import { GeoGrid, type LatLonBox } from './geo-grid';

const collected = (grid: GeoGrid, box: LatLonBox): number[] => {
  const into = new Bitset();
  grid.collect(box, into);
  return into.toArray();
};

describe('GeoGrid', () => {
  it('finds the documents of the cells a box overlaps, edges included', () => {
    const grid = new GeoGrid(0.05);
    grid.place(0, { lat: 48.8566, lon: 2.3522 });
    grid.place(1, { lat: 45.7597, lon: 4.8553 });
    grid.place(2, { lat: 48.9, lon: 2.4 });
    grid.place(3, null);
    expect(collected(grid, { south: 48.8566, north: 48.8566, west: 2.3522, east: 2.3522 })).toEqual([0]);
    expect(collected(grid, { south: 48, north: 49, west: 2, east: 3 })).toEqual([0, 2]);
    expect(collected(grid, { south: -90, north: 90, west: -180, east: 180 })).toEqual([0, 1, 2]);
  });

  it('follows a moved document and forgets a removed one', () => {
    const grid = new GeoGrid();
    grid.place(0, { lat: 48.8566, lon: 2.3522 });
    grid.place(0, { lat: 43.2965, lon: 5.3698 });
    grid.place(1, { lat: 43.2965, lon: 5.3698 });
    expect(collected(grid, { south: 48, north: 49, west: 2, east: 3 })).toEqual([]);
    expect(collected(grid, { south: 43, north: 44, west: 5, east: 6 })).toEqual([0, 1]);
    grid.remove(0);
    grid.remove(7);
    expect(collected(grid, { south: 43, north: 44, west: 5, east: 6 })).toEqual([1]);
  });

  it('keeps points on the poles and the antimeridian, and coordinates out of range, in border cells', () => {
    const grid = new GeoGrid();
    grid.place(0, { lat: 90, lon: 180 });
    grid.place(1, { lat: -90, lon: -180 });
    grid.place(2, { lat: 95, lon: 200 });
    expect(collected(grid, { south: 89.99, north: 90, west: 179.99, east: 180 })).toEqual([0, 2]);
    expect(collected(grid, { south: -90, north: -89.99, west: -180, east: -179.99 })).toEqual([1]);
  });
});

describe('geo boxes', () => {
  const france = fc.record({ lat: fc.double({ min: 41, max: 51.5, noNaN: true }), lon: fc.double({ min: -5.5, max: 10, noNaN: true }) });
  const anywhere = fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });

  it('a radius box holds every point within the radius, those exactly at the radius included', () => {
    fc.assert(
      fc.property(fc.oneof(france, anywhere), fc.oneof(france, anywhere), fc.double({ min: 1, max: 1.5, noNaN: true }), (center, point, slack) => {
        // The point's own distance puts it on the edge; a slack above 1 puts it inside.
        const radiusKm = greatCircleKm(center, point) * slack;
        if (radiusKm === 0) return;
        const box = radiusBox(center, radiusKm);
        expect(point.lat >= box.south && point.lat <= box.north && point.lon >= box.west && point.lon <= box.east).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('a radius box holds a point exactly at the radius', () => {
    const center = { lat: 48.8566, lon: 2.3522 };
    const point = { lat: 48.8566, lon: 2.5 };
    const box = radiusBox(center, greatCircleKm(center, point));
    expect(point.lon <= box.east).toBe(true);
  });

  it('a ring box holds every point the ring holds, its edges included', () => {
    const ring: Ring = [[2.2, 48.8], [2.5, 48.8], [2.35, 49.0], [2.2, 48.8]];
    const box = ringBox(ring);
    fc.assert(
      fc.property(fc.double({ min: 2, max: 2.7, noNaN: true }), fc.double({ min: 48.6, max: 49.2, noNaN: true }), (lon, lat) => {
        if (!isPointInRing([lon, lat], ring)) return;
        expect(lat >= box.south && lat <= box.north && lon >= box.west && lon <= box.east).toBe(true);
      }),
    );
    expect(isPointInRing([2.35, 48.8], ring) && 48.8 >= box.south).toBe(true);
  });
});
