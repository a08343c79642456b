import { AUTOCOMPLETE_DEFAULT_LIMIT, type AutocompleteIndex, buildAutocompleteIndex, idFromIri } from './autocomplete';
import { autocompleteBenchQueries } from './autocomplete.bench';
import { type CityDirectory, buildCityDirectory } from './city-directory';

describe('location autocomplete', () => {
  let directory: CityDirectory;
  let index: AutocompleteIndex;

  beforeAll(() => {
    directory = buildCityDirectory();
    index = buildAutocompleteIndex(directory);
  });

  const insees = (query: string): Array<string | null> => index.search({ query }).map((suggestion) => suggestion.insee);

  it('ranks Saint-Étienne (42218) first for "saint etienne"', () => {
    const [first] = index.search({ query: 'saint etienne' });
    expect(first).toMatchObject({
      '@id': '/cities/42218',
      '@type': 'City',
      code: '42218',
      id: '42218',
      insee: '42218',
      name: 'Saint-Étienne',
      zipcode: '42000',
      displayName: 'Saint-Étienne (42)',
      libelle: 'Saint-Étienne (42000)',
    });
    expect(first?.location?.lat).toBeCloseTo(45.44, 1);
  });

  it('understands abbreviations, accents, hyphens and apostrophes', () => {
    expect(insees('St-Étienne')[0]).toBe('42218');
    expect(insees('ST ETIENNE')[0]).toBe('42218');
    expect(insees('l hay les roses')[0]).toBe('94038');
    expect(insees("L'Haÿ")[0]).toBe('94038');
    expect(insees('hay les roses')[0]).toBe('94038');
    expect(insees('havre')[0]).toBe('76351');
  });

  it('does not let an unfinished "st" hide names starting with "st"', () => {
    expect(insees('st')[0]).toBe('67482');
    expect(insees('st')).toContain('42218');
  });

  it('lists Paris arrondissements for the postal prefix 750', () => {
    const results = index.search({ query: '750' });
    expect(results).toHaveLength(AUTOCOMPLETE_DEFAULT_LIMIT);
    expect(results.every((suggestion) => suggestion.insee?.startsWith('751') && suggestion.zipcode?.startsWith('750'))).toBe(true);
    expect(results[0]?.zipcode).toBe('75001');
    expect(index.search({ query: '75015' })[0]?.insee).toBe('75115');
  });

  it('finds departments by name and by code', () => {
    const [rhone] = index.search({ query: 'rhone' });
    expect(rhone).toMatchObject({ '@id': '/departments/69', '@type': 'Department', code: '69', id: '69', name: 'Rhône', insee: null, zipcode: null });
    expect(rhone?.location).not.toBeNull();
    expect(index.search({ query: '69' })[0]?.['@id']).toBe('/departments/69');
    expect(index.search({ query: '2A' })[0]?.['@id']).toBe('/departments/201');
    expect(index.search({ query: 'seine saint' })[0]?.name).toBe('Seine-Saint-Denis');
  });

  it('ranks the exact name, then prefixes by population', () => {
    const paris = index.search({ query: 'paris' });
    expect(paris[0]?.insee).toBe('75056');
    expect(paris[0]?.groupedCityNames).toHaveLength(20);
    expect(paris.slice(2).every((suggestion) => suggestion.name.startsWith('Paris '))).toBe(true);
  });

  it('honours excluded city and department IRIs', () => {
    const withoutSaintEtienne = index.search({ query: 'saint etienne', excludedCitiesIds: ['/cities/42218'] });
    expect(withoutSaintEtienne.map((suggestion) => suggestion.insee)).not.toContain('42218');
    expect(withoutSaintEtienne).toHaveLength(AUTOCOMPLETE_DEFAULT_LIMIT);
    const withoutRhone = index.search({ query: 'rhone', excludedDepartmentsIds: ['/departments/69'] });
    expect(withoutRhone.map((suggestion) => suggestion['@id'])).not.toContain('/departments/69');
    // The precomputed ranking of short prefixes still honours exclusions.
    const s = index.search({ query: 's' });
    const iris = (type: string): string[] => s.filter((suggestion) => suggestion['@type'] === type).map((suggestion) => suggestion['@id']);
    const sExcluded = index.search({ query: 's', excludedDepartmentsIds: iris('Department'), excludedCitiesIds: iris('City') });
    expect(sExcluded).toHaveLength(AUTOCOMPLETE_DEFAULT_LIMIT);
    expect(sExcluded.some((suggestion) => s.some((other) => other['@id'] === suggestion['@id']))).toBe(false);
    // An IRI of the wrong collection excludes nothing.
    expect(index.search({ query: 'rhone', excludedDepartmentsIds: ['/cities/69'] })[0]?.['@id']).toBe('/departments/69');
    expect(idFromIri('/cities/75056', 'cities')).toBe(75056);
    expect(idFromIri('12', 'departments')).toBe(12);
    expect(idFromIri('/cities/12', 'departments')).toBeNull();
  });

  it('limits results and validates the limit', () => {
    expect(index.search({ query: 'saint', limit: 3 })).toHaveLength(3);
    expect(index.search({ query: '' })).toEqual([]);
    expect(() => index.search({ query: 'x', limit: 0 })).toThrow(expect.objectContaining({ propertyPath: 'limit' }));
  });

  it('answers the benchmark query mix without error', () => {
    for (const query of autocompleteBenchQueries(500, directory)) expect(Array.isArray(index.search(query))).toBe(true);
  });
});
