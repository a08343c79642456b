import { haversineKm } from './geo-math';
import { nearestStations } from '@immo/contracts';
import { allStationLines, allStations, locatedStations, stationsNear, stationsNearWithDistance } from './stations';

describe('stations', () => {
  it('carries the real Paris lines with official number, colour and route name', () => {
    const lines = allStationLines();
    const metro1 = lines.find((line) => line.id === 101);
    expect(metro1).toEqual({ id: 101, name: 'Métro 1', number: '1', color: '#FFCD00', routeName: 'La Défense – Château de Vincennes' });
    const numbers = lines.filter((line) => line.id >= 101 && line.id < 200).map((line) => line.number);
    expect(numbers).toEqual(expect.arrayContaining(['1', '2', '3', '3bis', '4', '5', '6', '7', '7bis', '8', '9', '10', '11', '12', '13', '14']));
    expect(lines.filter((line) => line.name.startsWith('RER')).map((line) => line.number)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(lines.every((line) => /^#[0-9A-F]{6}$/.test(line.color))).toBe(true);
    expect(new Set(lines.map((line) => line.id)).size).toBe(lines.length);
  });

  it('has at least 60 Paris-area stations and unique ids', () => {
    const stations = allStations();
    expect(stations.filter((station) => station.id < 1000).length).toBeGreaterThanOrEqual(60);
    expect(new Set(stations.map((station) => station.id)).size).toBe(stations.length);
    expect(stations.every((station) => station.lines.length > 0)).toBe(true);
  });

  it('hands every station with its location to services that rank them, as copies, ranked as geo ranks them', () => {
    const located = locatedStations();
    expect(located.map(({ station, location }) => ({ ...station, location }))).toEqual(allStations());
    located[0]!.station.name = 'changed';
    located[0]!.station.lines[0]!.name = 'changed';
    expect(locatedStations()[0]?.station.name).not.toBe('changed');
    expect(locatedStations()[0]?.station.lines[0]?.name).not.toBe('changed');
    for (const point of [{ lat: 48.8584, lon: 2.347 }, { lat: 45.7597, lon: 4.8553 }, { lat: 43.2965, lon: 5.3698 }, { lat: 47.2184, lon: -1.5536 }]) {
      expect(nearestStations(locatedStations(), point, 1, 5).map((hit) => hit.station)).toEqual(stationsNear(point.lat, point.lon, 1, 5));
    }
  });

  it('lists stations near a point in the spec shape, nearest first', () => {
    const near = stationsNear(48.8584, 2.347, 1, 5);
    expect(near[0]).toMatchObject({ id: 1, name: 'Châtelet' });
    expect(near[0]?.lines.map((line) => line.number)).toEqual(['1', '4', '7', '11', '14']);
    expect(Object.keys(near[0]!).sort()).toEqual(['id', 'lines', 'name']);
    expect(Object.keys(near[0]!.lines[0]!).sort()).toEqual(['color', 'id', 'name', 'number', 'routeName']);
    expect(near).toHaveLength(5);
    const withDistance = stationsNearWithDistance(48.8584, 2.347, 1, 5);
    const distances = withDistance.map((hit) => hit.distanceKm);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(distances.every((distance) => distance <= 1)).toBe(true);
  });

  it('covers other large cities and nothing far from any network', () => {
    expect(stationsNear(45.7578, 4.832, 0.5, 3)[0]?.name).toBe('Bellecour');
    expect(stationsNear(43.2952, 5.3744, 0.5, 3)[0]?.name).toBe('Vieux-Port');
    expect(stationsNear(43.6045, 1.4455, 0.5, 3)[0]?.name).toBe('Capitole');
    expect(stationsNear(50.6365, 3.0707, 0.5, 3)[0]?.name).toBe('Gare Lille Flandres');
    expect(stationsNear(44.8448, -0.5737, 0.5, 3)[0]?.name).toBe('Quinconces');
    expect(stationsNear(45.0, 0.0, 5, 5)).toEqual([]);
    const station = allStations().find((item) => item.id === 2001)!;
    expect(haversineKm(station.location, { lat: 45.7578, lon: 4.832 })).toBeLessThan(0.01);
  });

  it('validates its arguments', () => {
    expect(() => stationsNear(91, 0)).toThrow(expect.objectContaining({ propertyPath: 'lat' }));
    expect(() => stationsNear(48.85, 2.35, 0)).toThrow(expect.objectContaining({ propertyPath: 'radius' }));
    expect(() => stationsNear(48.85, 2.35, 1, 0)).toThrow(expect.objectContaining({ propertyPath: 'limit' }));
  });
});
