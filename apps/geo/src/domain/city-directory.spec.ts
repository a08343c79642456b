import { CITIES_PAGE_SIZE, type CityDirectory, buildCityDirectory } from './city-directory';
import { GeoValidationError } from './domain-errors';

describe('city directory', () => {
  let directory: CityDirectory;

  beforeAll(() => {
    directory = buildCityDirectory();
  });

  it('exposes the City object of the spec', () => {
    const lyon = directory.cityByInsee('69123');
    expect(lyon).toMatchObject({
      id: 69123,
      cityParentId: null,
      name: 'Lyon',
      originalName: 'Lyon',
      insee: '69123',
      zipcode: '69001',
      open: true,
      hasGroupedByName: true,
      hasGroupedByZipcode: true,
      country: { code: 'FR', id: 1, name: 'France' },
      department: { code: '69', id: 69, name: 'Rhône' },
      region: { code: '84', id: 84, name: 'Auvergne-Rhône-Alpes' },
    });
    expect(lyon?.groupedCityNames).toHaveLength(9);
    expect(lyon?.groupedCityZipcodes).toContain('69009');
    expect(lyon?.locations?.lat).toBeCloseTo(45.76, 1);
    expect(directory.cityById(69123)).toBe(lyon);
  });

  it('splits the article from the name and labels cities', () => {
    const lhay = directory.listItemById(94038);
    expect(lhay).toMatchObject({
      '@id': '/cities/94038',
      '@type': 'City',
      article: "l'",
      name: 'Haÿ-les-Roses',
      originalName: "L'Haÿ-les-Roses",
      libelle: "L'Haÿ-les-Roses (94240)",
      department: '/departments/94',
      cityParent: null,
    });
    expect(directory.listItemById(76351)?.article).toBe('le');
    expect(directory.listItemById(76351)?.name).toBe('Havre');
  });

  it('resolves zipcode 75015 to Paris 15e with Paris as its parent', () => {
    const [first] = directory.citiesByZipcode('75015');
    expect(first?.insee).toBe('75115');
    expect(first?.cityParentId).toBe(75056);

    const { items, totalItems } = directory.listCities({ zipcode: '75015', excludeGroupedCities: true });
    expect(totalItems).toBe(1);
    expect(items[0]).toMatchObject({
      '@id': '/cities/75115',
      insee: '75115',
      zipcode: '75015',
      libelle: 'Paris 15e Arrondissement (75015)',
      cityParent: { '@id': '/cities/75056', '@type': 'City', insee: '75056', name: 'Paris', libelle: 'Paris (75001)' },
    });
    // Without the flag the grouping commune is listed too.
    expect(directory.listCities({ zipcode: '75015' }).items.map((item) => item.insee).sort()).toEqual(['75056', '75115']);
    expect(directory.parentOf(75115)?.insee).toBe('75056');
    expect(directory.childrenOf(75056)).toHaveLength(20);
  });

  it('matches a listing zipcode and town name tolerantly', () => {
    expect(directory.cityByZipcodeAndName('42000', 'ST ETIENNE')?.insee).toBe('42218');
    expect(directory.cityByZipcodeAndName('94240', 'l hay les roses')?.insee).toBe('94038');
    expect(directory.cityByZipcodeAndName('94240', 'Haÿ-les-Roses')?.insee).toBe('94038');
    expect(directory.cityByZipcodeAndName('75015', 'Paris')?.insee).toBe('75115');
    expect(directory.cityByZipcodeAndName('75015', 'Lyon')).toBeNull();
  });

  it('finds the nearest commune to a point, preferring arrondissements', () => {
    expect(directory.nearestCity(48.8566, 2.3522)?.department.code).toBe('75');
    expect(directory.nearestCity(48.8566, 2.3522)?.cityParentId).toBe(75056);
    expect(directory.nearestCity(45.4397, 4.3872)?.insee).toBe('42218');
    expect(directory.nearestCity(45.0, -30.0)).toBeNull();
  });

  it('filters by one or several INSEE codes and zipcodes', () => {
    expect(directory.listCities({ insee: '69123' }).items.map((item) => item.insee)).toEqual(['69123']);
    expect(directory.listCities({ insee: ['69123', '13055', '2A004'] }).totalItems).toBe(3);
    expect(directory.listCities({ zipcode: ['42000', '94240'] }).items.map((item) => item.insee).sort()).toEqual(['42218', '94038']);
  });

  it('filters by name, slug and libelle', () => {
    expect(directory.listCities({ slug: 'saint-etienne' }).items.map((item) => item.insee)).toEqual(['42218']);
    expect(directory.listCities({ name: 'st etienne' }).items.map((item) => item.insee)).toEqual(['42218']);
    expect(directory.listCities({ name: 'Le Havre' }).items.map((item) => item.insee)).toEqual(['76351']);
    expect(directory.listCities({ libelle: '75015' }).items.map((item) => item.insee)).toEqual(['75115']);
    expect(directory.listCities({ libelle: 'paris 15e' }).totalItems).toBe(1);
  });

  it('selects cities inside a polygon', () => {
    // A triangle around central Lyon.
    const polygon = [
      { lat: 45.79, lon: 4.8 },
      { lat: 45.72, lon: 4.78 },
      { lat: 45.74, lon: 4.9 },
    ];
    const inside = directory.listCities({ polygon, excludeGroupedCities: true }).items.map((item) => item.insee);
    expect(inside).toEqual(expect.arrayContaining(['69381', '69382', '69383']));
    expect(inside).not.toContain('75056');
  });

  it('rejects a polygon with fewer than 3 distinct points, naming the field', () => {
    const twoPoints = [
      { lat: 45.79, lon: 4.8 },
      { lat: 45.72, lon: 4.78 },
      { lat: 45.79, lon: 4.8 },
    ];
    expect(() => directory.listCities({ polygon: twoPoints })).toThrow(GeoValidationError);
    try {
      directory.listCities({ polygon: twoPoints });
    } catch (error) {
      expect((error as GeoValidationError).propertyPath).toBe('polygon');
      expect((error as GeoValidationError).violations[0]?.propertyPath).toBe('polygon');
    }
    expect(() => directory.listCities({ polygon: [{ lat: 95, lon: 0 }, { lat: 1, lon: 1 }, { lat: 2, lon: 2 }] })).toThrow(
      expect.objectContaining({ propertyPath: 'polygon[0]' }),
    );
  });

  it('orders by name and pages by 30', () => {
    const first = directory.listCities({ zipcode: ['75001', '75002', '75003'], order: { name: 'asc' } });
    expect(first.items.map((item) => item.name)).toEqual([
      'Paris',
      'Paris 1er Arrondissement',
      'Paris 2e Arrondissement',
      'Paris 3e Arrondissement',
    ]);
    const descending = directory.listCities({ zipcode: ['75001', '75002', '75003'], order: { name: 'desc' } });
    expect(descending.items[0]?.name).toBe('Paris 3e Arrondissement');

    const department = directory.listCities({ zipcode: directory.citiesByDepartmentCode('2A').map((city) => city.zipcode ?? '') });
    expect(department.items).toHaveLength(CITIES_PAGE_SIZE);
    const lastPage = Math.ceil(department.totalItems / CITIES_PAGE_SIZE);
    expect(directory.listCities({ zipcode: directory.citiesByDepartmentCode('2A').map((city) => city.zipcode ?? ''), page: lastPage }).items.length).toBeGreaterThan(0);
    expect(() => directory.listCities({ page: 0 })).toThrow(expect.objectContaining({ propertyPath: 'page' }));
    expect(() => directory.listCities({ order: { name: 'up' as 'asc' } })).toThrow(expect.objectContaining({ propertyPath: 'order[name]' }));
    expect(directory.listCities().totalItems).toBe(directory.entries.length);
  });

  it('looks departments up by id and code, Corsica included', () => {
    expect(directory.departmentByCode('69')).toMatchObject({ id: 69, name: 'Rhône', article: 'le', chefLieuCityId: 69123 });
    expect(directory.departmentById(201)?.code).toBe('2A');
    expect(directory.departmentByCode('2b')?.id).toBe(202);
    expect(directory.citiesByDepartmentId(201).length).toBeGreaterThan(100);
  });

  it("names departments as the original service does: code, slug of the name, chef-lieu's IRI", () => {
    expect(directory.departmentByCode('22')).toMatchObject({ departmentCode: '22', name: "Côtes-d'Armor", nameClean: 'cotes-d-armor', chefLieu: '/cities/22278' });
    expect(directory.departmentByCode('2A')).toMatchObject({ departmentCode: '2A', chefLieu: '/cities/201004' });
  });

  it('lists departments by code, filtered by codes or part of the name, paged', () => {
    const all = directory.listDepartments();
    expect(all.totalItems).toBe(directory.departments.length);
    expect(all.items).toHaveLength(CITIES_PAGE_SIZE);
    expect(all.items.slice(0, 2).map((item) => item['@id'])).toEqual(['/departments/1', '/departments/2']);
    expect(all.items[0]).toMatchObject({ '@type': 'Department', departmentCode: '01', name: 'Ain', nameClean: 'ain', id: 1, code: '01' });

    expect(directory.listDepartments({ code: ['69', '2a'] }).items.map((item) => item.departmentCode)).toEqual(['2A', '69']);
    expect(directory.listDepartments({ name: 'cotes d armor' }).items.map((item) => item.departmentCode)).toEqual(['22']);
    expect(directory.listDepartments({ name: 'savoie' }).items.map((item) => item.departmentCode)).toEqual(['73', '74']);

    const second = directory.listDepartments({ page: 2, itemsPerPage: 10 });
    expect(second.items.map((item) => item.id)).toEqual(all.items.slice(10, 20).map((item) => item.id));
  });

  it("lists a department's cities, and none for an unknown department", () => {
    const { items, totalItems } = directory.listCities({ department: 201 });
    expect(totalItems).toBe(directory.citiesByDepartmentId(201).length);
    expect(items.every((item) => item.department === '/departments/201')).toBe(true);
    expect(directory.listCities({ department: 69, insee: ['69123', '75056'] }).items.map((item) => item.insee)).toEqual(['69123']);
    expect(directory.listCities({ department: 999 }).totalItems).toBe(0);
  });

  it('gives list items their point, and the city resource the list item shape with the other City fields', () => {
    const lyon = directory.cityByInsee('69123');
    const item = directory.listItemById(69123);
    expect(item).toMatchObject({ latitude: lyon?.locations?.lat, longitude: lyon?.locations?.lon });
    const resource = directory.cityResourceById(69123);
    expect(resource).toEqual({ ...item, id: 69123, cityParentId: null, open: true, hasGroupedByName: true, hasGroupedByZipcode: true, groupedCityNames: lyon?.groupedCityNames, groupedCityZipcodes: lyon?.groupedCityZipcodes, country: lyon?.country, region: lyon?.region, locations: lyon?.locations });
    expect(resource?.department).toBe('/departments/69');
    expect(directory.cityResourceById(99999999)).toBeNull();
  });
});
