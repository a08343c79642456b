import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CityDirectory, buildCityDirectory } from './city-directory';
import { haversineKm } from './geo-math';
import {
  MAX_POI_RADIUS_KM,
  POI_EXTRACT_ENV,
  type PoiSource,
  type SchoolAttributes,
  createPoiSource,
  createSyntheticPoiSource,
  generateCommunePois,
  loadPoisFromCsv,
  loadPoisFromGeoJson,
  poiSourceFromEnv,
} from './points-of-interest';

const CENTRAL_PARIS = { lat: 48.8566, lon: 2.3522 };

describe('points of interest', () => {
  let directory: CityDirectory;
  let synthetic: PoiSource;
  let workDir: string;

  beforeAll(() => {
    directory = buildCityDirectory();
    synthetic = createSyntheticPoiSource(directory);
    workDir = mkdtempSync(join(tmpdir(), 'geo-poi-'));
  });

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('finds schools with schoolType and operatorType within 1 km of central Paris', () => {
    const pois = synthetic.poisWithin({ ...CENTRAL_PARIS, radiusKm: 1, facilities: ['school'] });
    const schools = pois.filter((poi) => poi.type === 'school');
    expect(schools.length).toBeGreaterThan(5);
    const complete = schools.filter((poi) => {
      const attributes = poi.attributes as SchoolAttributes;
      return attributes.schoolType !== undefined && attributes.operatorType !== undefined;
    });
    expect(complete.length).toBeGreaterThan(0);
    const types = new Set(schools.map((poi) => (poi.attributes as SchoolAttributes).schoolType));
    expect([...types].some((type) => type === 'collège' || type === 'lycée')).toBe(true);
    expect(schools.some((poi) => (poi.attributes as SchoolAttributes).operatorType === 'private')).toBe(true);
  });

  it('returns only requested categories within the radius, nearest first, with [] attributes for non-schools', () => {
    const pois = synthetic.poisWithin({ ...CENTRAL_PARIS, radiusKm: 1.5, facilities: ['restaurant', 'hospital', 'parking', 'kindergarten'] });
    expect(pois.length).toBeGreaterThan(50);
    expect(new Set(pois.map((poi) => poi.type))).toEqual(new Set(['restaurant', 'hospital', 'parking', 'kindergarten']));
    const distances = pois.map((poi) => haversineKm(CENTRAL_PARIS, poi));
    expect(distances.every((distance) => distance <= 1.5)).toBe(true);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(pois.every((poi) => Array.isArray(poi.attributes) && poi.attributes.length === 0)).toBe(true);
    expect(pois.some((poi) => poi.name === null)).toBe(true);
  });

  it('is deterministic across sources and scales with population', () => {
    const again = createSyntheticPoiSource(directory);
    const query = { lat: 45.764, lon: 4.8357, radiusKm: 2, facilities: ['school', 'restaurant'] };
    expect(again.poisWithin(query)).toEqual(synthetic.poisWithin(query));
    const lyon3 = directory.entryByInsee('69383')!;
    const village = directory.entries.find((entry) => entry.record.population > 0 && entry.record.population < 100)!;
    expect(generateCommunePois(lyon3, 'restaurant').length).toBeGreaterThan(100);
    expect(generateCommunePois(village, 'hospital')).toEqual([]);
    expect(generateCommunePois(directory.entryByInsee('75056')!, 'school')).toEqual([]);
    expect(createSyntheticPoiSource(directory, { seed: 7 }).poisWithin(query)).not.toEqual(synthetic.poisWithin(query));
  });

  it('validates the query', () => {
    const base = { ...CENTRAL_PARIS, radiusKm: 1, facilities: ['school'] };
    expect(() => synthetic.poisWithin({ ...base, radiusKm: MAX_POI_RADIUS_KM + 1 })).toThrow(expect.objectContaining({ propertyPath: 'radius' }));
    expect(() => synthetic.poisWithin({ ...base, radiusKm: 0 })).toThrow(expect.objectContaining({ propertyPath: 'radius' }));
    expect(() => synthetic.poisWithin({ ...base, facilities: [] })).toThrow(expect.objectContaining({ propertyPath: 'facilities' }));
    expect(() => synthetic.poisWithin({ ...base, facilities: ['school', 'zoo'] })).toThrow(expect.objectContaining({ propertyPath: 'facilities[1]' }));
    expect(() => synthetic.poisWithin({ ...base, lat: 91 })).toThrow(expect.objectContaining({ propertyPath: 'lat' }));
  });

  it('answers a maximum-radius query around Paris quickly once warm', () => {
    const query = { ...CENTRAL_PARIS, radiusKm: MAX_POI_RADIUS_KM, facilities: ['kindergarten', 'school', 'restaurant', 'hospital', 'parking'] };
    synthetic.poisWithin(query);
    const started = performance.now();
    const pois = synthetic.poisWithin(query);
    const elapsed = performance.now() - started;
    console.log(`geo POIs: ${pois.length} within ${MAX_POI_RADIUS_KM} km of central Paris in ${elapsed.toFixed(1)} ms (warm)`);
    expect(pois.length).toBeGreaterThan(1000);
  });

  it('loads an operator GeoJSON extract and uses it instead of the generator', () => {
    const path = join(workDir, 'pois.geojson');
    writeFileSync(
      path,
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.3525, 48.8567] }, properties: { type: 'school', name: 'École A', schoolType: 'primaire', operatorType: 'public' } },
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.353, 48.857] }, properties: { facility: 'restaurant', name: null } },
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.6, 48.9] }, properties: { type: 'school' } },
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.353, 48.857] }, properties: { type: 'cinema' } },
          { type: 'Feature', geometry: null, properties: { type: 'school' } },
        ],
      }),
    );
    const source = loadPoisFromGeoJson(path);
    expect(source.kind).toBe('extract');
    expect(source.loaded).toBe(3);
    expect(source.skipped).toBe(2);
    expect(source.poisWithin({ ...CENTRAL_PARIS, radiusKm: 1, facilities: ['school', 'restaurant'] })).toEqual([
      { lat: 48.8567, lon: 2.3525, name: 'École A', type: 'school', attributes: { schoolType: 'primaire', operatorType: 'public' } },
      { lat: 48.857, lon: 2.353, name: null, type: 'restaurant', attributes: [] },
    ]);
    expect(createPoiSource(directory, { extractPath: path }).kind).toBe('extract');
    expect(poiSourceFromEnv(directory, { [POI_EXTRACT_ENV]: path }).kind).toBe('extract');
    expect(poiSourceFromEnv(directory, {}).kind).toBe('synthetic');
  });

  it('loads an operator CSV extract, comma or semicolon separated', () => {
    const comma = join(workDir, 'pois.csv');
    writeFileSync(comma, '\uFEFFlat,lon,type,name,schoolType,operatorType\n48.8567,2.3525,school,"Lycée ""B""",lycée,private\n48.857,2.353,parking,,,\nbad,row,school,,,\n');
    const source = loadPoisFromCsv(comma);
    expect(source.loaded).toBe(2);
    expect(source.skipped).toBe(1);
    expect(source.poisWithin({ ...CENTRAL_PARIS, radiusKm: 1, facilities: ['school'] })).toEqual([
      { lat: 48.8567, lon: 2.3525, name: 'Lycée "B"', type: 'school', attributes: { schoolType: 'lycée', operatorType: 'private' } },
    ]);
    const semicolon = join(workDir, 'pois-fr.csv');
    writeFileSync(semicolon, 'type;name;lat;lon\nhospital;Hôpital C;48,8567;2,3525\n');
    expect(createPoiSource(directory, { extractPath: semicolon }).poisWithin({ ...CENTRAL_PARIS, radiusKm: 1, facilities: ['hospital'] })).toHaveLength(1);
  });
});
