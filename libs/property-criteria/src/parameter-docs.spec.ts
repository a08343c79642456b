import { ENDPOINT_PARAMETERS, searchVariables, type CriteriaEndpoint } from './endpoint-parameters';
import { INDICATOR_PARAMETER_DESCRIPTIONS, PARAMETER_DESCRIPTIONS, describeParameters } from './parameter-docs';

describe('describeParameters', () => {
  const properties = describeParameters('properties');
  const byName = new Map(properties.map((parameter) => [parameter.name, parameter]));

  it('describes every variable of the collection, in the search template order, with a schema', () => {
    expect(properties.map((parameter) => parameter.name)).toEqual(searchVariables('properties'));
    const undescribed = properties.filter((parameter) => parameter.description.trim() === '' || Object.keys(parameter.schema).length === 0);
    expect(undescribed.map((parameter) => parameter.name)).toEqual([]);
  });

  it('holds no description of a name the collection does not read', () => {
    const read = ENDPOINT_PARAMETERS.properties.names;
    expect(Object.keys(PARAMETER_DESCRIPTIONS).filter((stem) => !read.has(stem))).toEqual([]);
    expect([...read].filter((stem) => !(stem in PARAMETER_DESCRIPTIONS))).toEqual([]);
    expect(Object.keys(INDICATOR_PARAMETER_DESCRIPTIONS).filter((stem) => read.has(stem) || !ENDPOINT_PARAMETERS.price_per_meter.names.has(stem))).toEqual([]);
    expect(byName.has('aggregationInterval')).toBe(false);
  });

  it.each<CriteriaEndpoint>(['price_per_meter', 'similar'])('describes every variable of %s too', (endpoint) => {
    const described = describeParameters(endpoint);
    expect(described.map((parameter) => parameter.name)).toEqual(searchVariables(endpoint));
    expect(described.filter((parameter) => parameter.description.trim() === '')).toEqual([]);
  });

  it('writes lists as name[], sort keys one by one and structured filters as deepObject', () => {
    expect(byName.get('propertyTypes[]')?.schema).toEqual({ type: 'array', items: { type: 'integer', enum: [0, 1, 2, 3, 4, 5, 6] }, maxItems: 1000 });
    expect(byName.get('order[price]')).toMatchObject({ schema: { enum: ['asc', 'desc'] } });
    expect(byName.get('order[price]')?.description).toMatch(/asking price.*last in both directions.*uuid/s);
    expect(byName.get('expressions')).toMatchObject({ style: 'deepObject', explode: true, schema: { type: 'array' } });
    expect(byName.get('expressions')?.description).toMatch(/\[options\]\[strict\].*prefix.*accents.*no fuzziness/s);
    expect(byName.get('geoShapes')).toMatchObject({ style: 'deepObject', explode: true });
    expect(byName.get('budgetMin')?.style).toBeUndefined();
  });

  it('carries the semantics of the README', () => {
    expect(byName.get('budgetMin')?.description).toMatch(/inclusive/);
    expect(byName.get('rentalChargesMax')?.description).toMatch(/ONE advert .* all advert-level filters together/);
    expect(byName.get('includedDepartments[]')?.description).toMatch(/union/);
    expect(byName.get('withCoherentPrice')?.description).toMatch(/Default `true`.*flat 500–30,000.*flat 3–100/s);
    expect(byName.get('itemsPerPage')?.description).toMatch(/default 10.*capped at 30.*`0` returns no member/s);
    expect(byName.get('order[createdAt]')?.description).toMatch(/X-Ignored-Parameters/);
    expect(byName.get('sortMode')?.schema).toEqual({ type: 'string', enum: ['property', 'advert'], default: 'property' });
  });

  it('gives formats and patterns to dates, uuids and IRIs', () => {
    expect(byName.get('fromDate')?.schema).toMatchObject({ type: 'string', anyOf: [{ format: 'date' }, { format: 'date-time' }] });
    expect(byName.get('toDate')?.description).toMatch(/whole day/);
    const iri = (name: string) => new RegExp((byName.get(name)?.schema['items'] as { pattern: string }).pattern);
    expect(iri('includedCities[]').test('/cities/75056')).toBe(true);
    expect(iri('includedDepartments[]').test('/departments/69')).toBe(true);
    expect(iri('includedCities[]').test('/departments/69')).toBe(false);
    expect(JSON.stringify(byName.get('excludedProperties[]')?.schema)).toContain('"format":"uuid"');
  });

  it('follows the endpoint for types and defaults', () => {
    const indicator = new Map(describeParameters('price_per_meter').map((parameter) => [parameter.name, parameter]));
    expect(indicator.get('budgetMin')?.schema).toEqual({ type: 'integer' });
    expect(byName.get('budgetMin')?.schema).toEqual({ type: 'number' });
    expect(indicator.get('itemsPerPage')?.schema).toMatchObject({ default: 30 });
    expect(indicator.get('expired')?.schema).toEqual({ type: 'boolean' });
    expect(indicator.has('order[price]')).toBe(false);
  });

  it('describes the advert price bounds on every route that reads them, and expression as the other name of expressions', () => {
    for (const endpoint of ['properties', 'price_per_meter', 'similar'] as const) {
      const described = new Map(describeParameters(endpoint).map((parameter) => [parameter.name, parameter]));
      expect(described.get('advertPriceMin')?.description).toMatch(/ANY of its adverts that has not expired/);
      expect(described.has('advertPriceMax')).toBe(true);
    }
    const indicator = new Map(describeParameters('price_per_meter').map((parameter) => [parameter.name, parameter]));
    expect(['withLocation', 'geoAccuracy[]', 'geoShapes', 'expression'].filter((name) => !indicator.has(name))).toEqual([]);
    expect(indicator.get('advertPriceMin')?.schema).toEqual({ type: 'integer' });
    expect(byName.get('expression')).toMatchObject({ style: 'deepObject', explode: true, schema: { type: 'array' } });
    expect(byName.get('expression')?.description).toMatch(/same as `expressions`.*both at once is refused/s);
  });

  it('hands out fresh schemas', () => {
    (describeParameters('properties')[0]!.schema as Record<string, unknown>)['type'] = 'changed';
    expect(describeParameters('properties')[0]!.schema['type']).not.toBe('changed');
  });
});
