import { startStackFixture, type StackFixture } from '@immo/stack';

type Collection<T> = { 'hydra:member': T[]; 'hydra:totalItems': number; 'hydra:view'?: Record<string, string> };
type Problem = { status: number; violations?: { propertyPath: string; message: string }[] };
type Suggestion = { '@id': string; insee: string | null; name: string; zipcode: string | null };
type CityItem = { '@id': string; insee: string; name: string; department: string; cityParent: { name: string | null } | null };

/** The City resource of the original service (`GET /cities` items). */
const CITY_FIELDS = ['@id', '@type', 'zipcode', 'insee', 'article', 'name', 'libelle', 'department', 'cityParent', 'originalName', 'latitude', 'longitude'];
const DEPARTMENT_FIELDS = ['@id', '@type', 'departmentCode', 'name', 'nameClean', 'chefLieu'];

const pathsOf = (body: unknown) => ((body as Problem).violations ?? []).map((v) => v.propertyPath).sort();

describe('geo end to end', () => {
  let fixture: StackFixture;

  beforeAll(async () => {
    fixture = await startStackFixture();
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
  });

  describe('GET /public/location-autocomplete', () => {
    it('ranks Saint-Étienne (42218) first for "saint etienne"', async () => {
      const response = await fixture.get('/public/location-autocomplete?q=saint%20etienne');
      expect(response.status).toBe(200);
      const members = (response.body as Collection<Suggestion>)['hydra:member'];
      expect(members[0]).toMatchObject({ '@id': '/cities/42218', insee: '42218' });
    });

    it('is insensitive to accents, hyphens, apostrophes and the st abbreviation (query alias too)', async () => {
      const stEtienne = await fixture.get(`/public/location-autocomplete?query=${encodeURIComponent('St-Étienne')}`);
      expect((stEtienne.body as Collection<Suggestion>)['hydra:member'][0]?.insee).toBe('42218');
      const hay = await fixture.get('/public/location-autocomplete?q=l%20hay%20les%20roses');
      expect((hay.body as Collection<Suggestion>)['hydra:member'][0]?.insee).toBe('94038');
    });

    it('lists Paris arrondissements for the postal prefix 750', async () => {
      const members = ((await fixture.get('/public/location-autocomplete?q=750')).body as Collection<Suggestion>)['hydra:member'];
      expect(members.length).toBeGreaterThan(0);
      for (const member of members) expect(member.zipcode).toMatch(/^750/);
      expect(members.map((m) => m.insee)).toContain('75101');
    });

    it('honours excludedCitiesIds[]', async () => {
      const members = (
        (await fixture.get('/public/location-autocomplete?q=saint%20etienne&excludedCitiesIds[]=/cities/42218')).body as Collection<Suggestion>
      )['hydra:member'];
      expect(members.map((m) => m['@id'])).not.toContain('/cities/42218');
    });

    it('requires the term and rejects malformed exclusions', async () => {
      const missing = await fixture.get('/public/location-autocomplete');
      expect(missing.status).toBe(400);
      expect(pathsOf(missing.body)).toEqual(['q']);
      const bad = await fixture.get('/public/location-autocomplete?q=paris&excludedCitiesIds[]=lyon');
      expect(bad.status).toBe(400);
      expect(pathsOf(bad.body)).toEqual(['excludedCitiesIds[0]']);
    });
  });

  describe('GET /cities', () => {
    it('returns Lyon for insee=69123, in department 69, with a point inside Lyon', async () => {
      const response = await fixture.get('/cities?insee=69123');
      const members = (response.body as Collection<CityItem>)['hydra:member'];
      expect(members).toHaveLength(1);
      expect(members[0]).toMatchObject({ '@id': '/cities/69123', name: 'Lyon', department: '/departments/69' });
      const city = (await fixture.get('/cities/69123')).body as { department: string; region: { code: string }; locations: { lat: number; lon: number } };
      expect(city.department).toBe('/departments/69');
      expect(city.region.code).toBe('84');
      // Lyon's extent: roughly 45.70–45.81 N, 4.77–4.90 E.
      expect(city.locations.lat).toBeGreaterThan(45.7);
      expect(city.locations.lat).toBeLessThan(45.81);
      expect(city.locations.lon).toBeGreaterThan(4.77);
      expect(city.locations.lon).toBeLessThan(4.9);
    });

    it("gives items the original service's City fields, latitude and longitude included, and the same shape by id", async () => {
      const [item] = ((await fixture.get('/cities?insee=75115')).body as Collection<Record<string, unknown>>)['hydra:member'];
      expect(Object.keys(item ?? {}).sort()).toEqual([...CITY_FIELDS].sort());
      expect(item).toMatchObject({ '@id': '/cities/75115', '@type': 'City', insee: '75115', department: '/departments/75', cityParent: { '@id': '/cities/75056', name: 'Paris' } });
      expect(item?.['latitude']).toBeCloseTo(48.84, 1);
      expect(item?.['longitude']).toBeCloseTo(2.3, 1);
      const one = (await fixture.get('/cities/75115')).body as Record<string, unknown>;
      // Every field of the item, as the item has it, then the richer City fields.
      expect(one).toMatchObject({ '@context': '/contexts/City', ...item });
      expect(one).toMatchObject({ id: 75115, cityParentId: 75056, locations: { lat: item?.['latitude'], lon: item?.['longitude'] } });
    });

    it('returns Paris 15e with cityParent Paris for zipcode[]=75015', async () => {
      const members = ((await fixture.get('/cities?zipcode[]=75015')).body as Collection<CityItem>)['hydra:member'];
      const fifteenth = members.find((m) => m.insee === '75115');
      expect(fifteenth?.cityParent?.name).toBe('Paris');
    });

    it('names unknown parameters instead of refusing them, and still refuses a bad value of a known one', async () => {
      const unknown = await fixture.get('/cities?zipcode[]=75015&itemsPerPage=5&colour=red');
      expect(unknown.status).toBe(200);
      expect(unknown.headers.get('x-ignored-parameters')).toBe('itemsPerPage, colour');
      expect((unknown.body as Collection<CityItem>)['hydra:member'].some((m) => m.insee === '75115')).toBe(true);
      const bad = await fixture.get('/cities?page=x&colour=red');
      expect(bad.status).toBe(400);
      expect(pathsOf(bad.body)).toEqual(['page']);
    });

    it('pages by 30 with Hydra links', async () => {
      const response = await fixture.get('/cities?zipcode=13001&page=1');
      const body = response.body as Collection<CityItem>;
      expect(body['hydra:view']?.['hydra:first']).toContain('page=1');
      const many = (await fixture.get('/cities?name=saint&page=2')).body as Collection<CityItem>;
      expect(many['hydra:member'].length).toBeLessThanOrEqual(30);
    });

    it('filters by polygon', async () => {
      // A square around the centre of Lyon.
      const polygon = [
        [45.74, 4.8],
        [45.74, 4.87],
        [45.79, 4.87],
        [45.79, 4.8],
      ]
        .map(([lat, lon], i) => `polygon[${i}][lat]=${lat}&polygon[${i}][lon]=${lon}`)
        .join('&');
      const members = ((await fixture.get(`/cities?${polygon}`)).body as Collection<CityItem>)['hydra:member'];
      expect(members.map((m) => m.insee)).toContain('69123');
    });

    it('rejects a polygon with fewer than three points, bad numbers and bad order', async () => {
      const tooFew = await fixture.get('/cities?polygon[0][lat]=45&polygon[0][lon]=4&polygon[1][lat]=46&polygon[1][lon]=4');
      expect(tooFew.status).toBe(400);
      expect(pathsOf(tooFew.body)).toEqual(['polygon']);
      const repeated = await fixture.get(
        '/cities?polygon[0][lat]=45&polygon[0][lon]=4&polygon[1][lat]=45&polygon[1][lon]=4&polygon[2][lat]=45&polygon[2][lon]=4',
      );
      expect(repeated.status).toBe(400);
      expect(pathsOf(repeated.body)).toEqual(['polygon']);
      const bad = await fixture.get('/cities?page=zero&order[name]=up&polygon[0][lat]=north');
      expect(bad.status).toBe(400);
      expect(pathsOf(bad.body)).toEqual(expect.arrayContaining(['order[name]', 'page']));
    });

    it('answers 404 for an unknown city and 400 for a malformed id', async () => {
      expect((await fixture.get('/cities/99999999')).status).toBe(404);
      expect((await fixture.get('/cities/lyon')).status).toBe(400);
      expect((await fixture.get('/departments/999')).status).toBe(404);
    });
  });

  describe('GET /departments, /departments/{id} and /departments/{id}/cities', () => {
    it("lists departments by code in the original service's shape, the same by id", async () => {
      const response = await fixture.get('/departments');
      expect(response.status).toBe(200);
      const body = response.body as Collection<Record<string, unknown>>;
      // The 101 departments and the 8 overseas collectivities with INSEE codes (975, 977, 978, 984, 986–989).
      expect(body['hydra:totalItems']).toBe(109);
      expect(body['hydra:member']).toHaveLength(30);
      const [ain] = body['hydra:member'];
      expect(ain).toMatchObject({ '@id': '/departments/1', '@type': 'Department', departmentCode: '01', name: 'Ain', nameClean: 'ain', chefLieu: '/cities/1053' });
      for (const field of DEPARTMENT_FIELDS) expect(ain).toHaveProperty([field]);
      const one = (await fixture.get('/departments/1')).body;
      expect(one).toEqual({ '@context': '/contexts/Department', ...ain });
    });

    it('filters by code (one or several) and by part of the name, and pages', async () => {
      const codes = (await fixture.get('/departments?code[]=2A&code[]=69')).body as Collection<{ departmentCode: string }>;
      expect(codes['hydra:member'].map((d) => d.departmentCode)).toEqual(['2A', '69']);
      const one = (await fixture.get('/departments?code=971')).body as Collection<{ name: string }>;
      expect(one['hydra:member'].map((d) => d.name)).toEqual(['Guadeloupe']);
      const named = (await fixture.get(`/departments?name=${encodeURIComponent("côtes-d'armor")}`)).body as Collection<{ departmentCode: string }>;
      expect(named['hydra:member'].map((d) => d.departmentCode)).toEqual(['22']);
      const second = (await fixture.get('/departments?itemsPerPage=10&page=2')).body as Collection<{ departmentCode: string }>;
      expect(second['hydra:member'].map((d) => d.departmentCode)).toEqual(['11', '12', '13', '14', '15', '16', '17', '18', '19', '21']);
      expect(second['hydra:view']).toMatchObject({ 'hydra:previous': '/departments?itemsPerPage=10&page=1', 'hydra:next': '/departments?itemsPerPage=10&page=3' });
    });

    it('refuses bad paging naming the parameter, and names unknown parameters', async () => {
      const bad = await fixture.get('/departments?itemsPerPage=0&page=x');
      expect(bad.status).toBe(400);
      expect(pathsOf(bad.body)).toEqual(['itemsPerPage', 'page']);
      const unknown = await fixture.get('/departments?region=84&code=69');
      expect(unknown.status).toBe(200);
      expect(unknown.headers.get('x-ignored-parameters')).toBe('region');
    });

    it("pages a department's cities; 404 for an unknown department, 400 for a malformed id", async () => {
      const first = (await fixture.get('/departments/201/cities')).body as Collection<CityItem>;
      expect(first['hydra:totalItems']).toBeGreaterThan(100);
      expect(first['hydra:member']).toHaveLength(30);
      expect(first['hydra:member'].every((city) => city.department === '/departments/201')).toBe(true);
      const second = (await fixture.get('/departments/201/cities?page=2')).body as Collection<CityItem>;
      expect(second['hydra:member'].map((c) => c.insee)).not.toContain(first['hydra:member'][0]?.insee);
      expect(Object.keys(second['hydra:member'][0] ?? {}).sort()).toEqual([...CITY_FIELDS].sort());
      expect((await fixture.get('/departments/999/cities')).status).toBe(404);
      const malformed = await fixture.get('/departments/rhone/cities');
      expect(malformed.status).toBe(400);
      expect(pathsOf(malformed.body)).toEqual(['id']);
      expect(pathsOf((await fixture.get('/departments/69/cities?page=0')).body)).toEqual(['page']);
    });
  });

  describe('GET /indicators/points_of_interest', () => {
    it('finds schools with schoolType and operatorType within 1 km of central Paris', async () => {
      const response = await fixture.get('/indicators/points_of_interest?facilities[]=school&facilities[]=restaurant&lat=48.8566&lon=2.3522&radius=1');
      expect(response.status).toBe(200);
      const body = response.body as Collection<{ type: string; attributes: Record<string, string> | [] }> & { '@type': string };
      expect(body['@type']).toBe('hydra:Collection');
      expect(body['hydra:totalItems']).toBe(body['hydra:member'].length);
      expect(body['hydra:view']).toEqual({
        '@id': '/indicators/points_of_interest?facilities[]=school&facilities[]=restaurant&lat=48.8566&lon=2.3522&radius=1',
        '@type': 'hydra:PartialCollectionView',
      });
      const schools = body['hydra:member'].filter((p) => p.type === 'school');
      expect(schools.length).toBeGreaterThan(0);
      expect(schools[0]?.attributes).toMatchObject({ schoolType: expect.any(String), operatorType: expect.any(String) });
      const restaurant = body['hydra:member'].find((p) => p.type === 'restaurant');
      expect(restaurant?.attributes).toEqual([]);
    });

    it('names each missing or invalid parameter, and caps the radius', async () => {
      const missing = await fixture.get('/indicators/points_of_interest');
      expect(missing.status).toBe(400);
      expect(pathsOf(missing.body)).toEqual(['facilities', 'lat', 'lon', 'radius']);
      expect((missing.body as Problem).violations?.[0]?.message).toBe('is required');
      const bad = await fixture.get('/indicators/points_of_interest?facilities[]=cinema&lat=91&lon=abc&radius=50');
      expect(pathsOf(bad.body)).toEqual(['facilities[0]', 'lat', 'lon', 'radius']);
    });
  });
});
