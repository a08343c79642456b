import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type ReferenceData,
  cityIdFromInsee,
  computeCoverage,
  departmentIdFromCode,
  inseeFromCityId,
  loadReferenceData,
  parentOffsetPoint,
} from './reference-data';

describe('reference data', () => {
  let data: ReferenceData;
  let loadMs: number;

  beforeAll(() => {
    const started = performance.now();
    data = loadReferenceData();
    loadMs = performance.now() - started;
  });

  it('loads well under 5 s', () => {
    console.log(`geo reference data loaded in ${loadMs.toFixed(0)} ms (${data.communes.length} communes and arrondissements)`);
    expect(loadMs).toBeLessThan(5000);
  });

  it('locates at least 99.5 % of current communes', () => {
    const coverage = computeCoverage(data);
    console.log(
      `geo point coverage: ${(coverage.ratio * 100).toFixed(2)} % (${coverage.withPoint}/${coverage.total}); by source ${JSON.stringify(coverage.bySource)}`,
    );
    expect(coverage.ratio).toBeGreaterThanOrEqual(0.995);
  });

  it('keeps current communes and the 45 arrondissements, not delegated/associated communes', () => {
    const arrondissements = data.communes.filter((commune) => commune.kind === 'arrondissement');
    expect(arrondissements).toHaveLength(45);
    expect(arrondissements.every((commune) => commune.point !== null && commune.parentInsee !== null)).toBe(true);
    expect(data.communes.filter((commune) => commune.kind === 'commune').length).toBeGreaterThan(34000);
    expect(data.communes.find((commune) => commune.insee === '75115')?.parentInsee).toBe('75056');
  });

  it('places Lyon (69123) in department 69, inside its IGN extent', () => {
    const lyon = data.communes.find((commune) => commune.insee === '69123');
    expect(lyon?.departmentCode).toBe('69');
    const boxes = JSON.parse(
      readFileSync(createRequire(__filename).resolve('@etalab/fr-bounding-boxes/dist/communes.json'), 'utf8'),
    ) as Array<{ id: string; bbox: [number, number, number, number] }>;
    const extent = boxes.find((box) => box.id === 'fr:commune:69123')?.bbox;
    expect(extent).toBeDefined();
    const [west, south, east, north] = extent!;
    const point = lyon!.point!;
    expect(point.lon).toBeGreaterThanOrEqual(west);
    expect(point.lon).toBeLessThanOrEqual(east);
    expect(point.lat).toBeGreaterThanOrEqual(south);
    expect(point.lat).toBeLessThanOrEqual(north);
  });

  it('gives departments and regions the point of their chef-lieu', () => {
    const rhone = data.departments.find((department) => department.code === '69');
    const lyon = data.communes.find((commune) => commune.insee === '69123');
    expect(rhone?.chefLieuInsee).toBe('69123');
    expect(rhone?.point).toEqual(lyon?.point);
    expect(data.regions.find((region) => region.code === '11')?.point).toEqual(data.communes.find((c) => c.insee === '75056')?.point);
  });

  it('derives ids from INSEE codes only, so two loads agree', () => {
    const again = loadReferenceData();
    const before = new Map(data.communes.map((commune) => [commune.insee, commune.id]));
    expect(again.communes.every((commune) => before.get(commune.insee) === commune.id)).toBe(true);
    expect(again.departments.map((d) => d.id)).toEqual(data.departments.map((d) => d.id));
  });

  it('never gives two communes the same id, and the id scheme round-trips', () => {
    const ids = data.communes.map((commune) => commune.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const commune of data.communes) expect(inseeFromCityId(commune.id)).toBe(commune.insee);
    expect(cityIdFromInsee('75056')).toBe(75056);
    expect(cityIdFromInsee('01001')).toBe(1001);
    expect(cityIdFromInsee('2A004')).toBe(201004);
    expect(cityIdFromInsee('2B033')).toBe(202033);
    expect(() => cityIdFromInsee('7505')).toThrow();
    const departmentIds = data.departments.map((department) => department.id);
    expect(new Set(departmentIds).size).toBe(departmentIds.length);
    expect(departmentIdFromCode('2A')).toBe(201);
    expect(departmentIdFromCode('2B')).toBe(202);
    expect(departmentIdFromCode('971')).toBe(971);
  });

  it('offsets a parent point deterministically for arrondissements without a curated centre', () => {
    const parent = { lat: 48.8566, lon: 2.3522 };
    expect(parentOffsetPoint(parent, '75115')).toEqual(parentOffsetPoint(parent, '75115'));
    expect(parentOffsetPoint(parent, '75115')).not.toEqual(parentOffsetPoint(parent, '75116'));
  });
});
