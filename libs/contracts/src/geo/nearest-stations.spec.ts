import fc from 'fast-check';
import { greatCircleKm, MEAN_EARTH_RADIUS_KM } from './great-circle';
import { nearestStations, type LocatedStation } from './nearest-stations';

const KM_PER_LAT_DEGREE = (MEAN_EARTH_RADIUS_KM * Math.PI) / 180;

function station(id: number, lat: number, lon: number): LocatedStation {
  return { station: { id, name: `station ${id}`, lines: [] }, location: { lat, lon } };
}

describe('nearestStations', () => {
  const centre = { lat: 48.8566, lon: 2.3522 };

  it('lists the stations within the radius, nearest first, at most the limit', () => {
    const stations = [
      station(1, centre.lat + 0.5 / KM_PER_LAT_DEGREE, centre.lon), // 0.5 km north
      station(2, centre.lat + 0.2 / KM_PER_LAT_DEGREE, centre.lon), // 0.2 km north
      station(3, centre.lat + 1.5 / KM_PER_LAT_DEGREE, centre.lon), // beyond 1 km
      station(4, centre.lat - 0.9 / KM_PER_LAT_DEGREE, centre.lon), // 0.9 km south
    ];
    const hits = nearestStations(stations, centre, 1, 5);
    expect(hits.map((hit) => hit.station.id)).toEqual([2, 1, 4]);
    expect(hits[0]?.distanceKm).toBeCloseTo(0.2, 6);
    expect(nearestStations(stations, centre, 1, 2).map((hit) => hit.station.id)).toEqual([2, 1]);
    expect(nearestStations(stations, centre, 0.1, 5)).toEqual([]);
  });

  it('orders stations at the same distance by id, and hands out the given station objects', () => {
    const west = station(9, centre.lat, centre.lon - 0.005);
    const east = station(7, centre.lat, centre.lon + 0.005);
    const hits = nearestStations([west, east], centre, 1, 5);
    expect(hits.map((hit) => hit.station.id)).toEqual([7, 9]);
    expect(hits[0]?.station).toBe(east.station);
  });

  it('answers exactly what ranking every station by great-circle distance answers (the latitude shortcut drops nothing)', () => {
    const point = fc.record({ lat: fc.double({ min: 42, max: 51, noNaN: true }), lon: fc.double({ min: -4, max: 8, noNaN: true }) });
    fc.assert(
      fc.property(fc.array(point, { maxLength: 60 }), point, fc.double({ min: 0.05, max: 20, noNaN: true }), fc.integer({ min: 1, max: 50 }), (points, from, radiusKm, limit) => {
        const stations = points.map((p, i) => station(i + 1, p.lat, p.lon));
        const expected = stations
          .map((s) => ({ station: s.station, distanceKm: greatCircleKm(from, s.location) }))
          .filter((hit) => hit.distanceKm <= radiusKm)
          .sort((a, b) => a.distanceKm - b.distanceKm || a.station.id - b.station.id)
          .slice(0, limit);
        expect(nearestStations(stations, from, radiusKm, limit)).toEqual(expected);
      }),
    );
  });

  it('keeps a station right at the radius whose latitude differs by almost the whole radius', () => {
    const dueNorth = station(1, centre.lat + 0.999 / KM_PER_LAT_DEGREE, centre.lon);
    expect(nearestStations([dueNorth], centre, 1, 5).map((hit) => hit.station.id)).toEqual([1]);
  });
});
