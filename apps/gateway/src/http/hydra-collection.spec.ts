import fc from 'fast-check';
import { hydraCollection, hydraCollectionBytes } from './hydra-collection';
import { stringifyQuery } from './query-string';

describe('hydraCollection', () => {
  const base = {
    context: '/contexts/PropertyDocument',
    path: '/documents/properties',
    members: [{ a: 1 }],
    itemsPerPage: 10,
    mappings: [{ variable: 'propertyTypes[]', property: 'propertyType', required: false }],
  };

  it('links first, last, previous and next pages keeping the filters', () => {
    const collection = hydraCollection({ ...base, query: { propertyTypes: ['0'], page: '2' }, totalItems: 35, page: 2 });
    expect(collection['hydra:totalItems']).toBe(35);
    expect(collection['hydra:view']).toEqual({
      '@id': '/documents/properties?propertyTypes[0]=0&page=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': '/documents/properties?propertyTypes[0]=0&page=1',
      'hydra:last': '/documents/properties?propertyTypes[0]=0&page=4',
      'hydra:previous': '/documents/properties?propertyTypes[0]=0&page=1',
      'hydra:next': '/documents/properties?propertyTypes[0]=0&page=3',
    });
  });

  it('has no next link on the last page and a single page when empty', () => {
    const collection = hydraCollection({ ...base, query: {}, totalItems: 0, page: 1, members: [] });
    expect(collection['hydra:view']['hydra:next']).toBeUndefined();
    expect(collection['hydra:view']['hydra:last']).toBe('/documents/properties?page=1');
  });

  it('describes its search template and mapping', () => {
    const collection = hydraCollection({ ...base, query: {}, totalItems: 1, page: 1 });
    expect(collection['hydra:search']).toEqual({
      '@type': 'hydra:IriTemplate',
      'hydra:template': '/documents/properties{?propertyTypes[]}',
      'hydra:variableRepresentation': 'BasicRepresentation',
      'hydra:mapping': [{ '@type': 'IriTemplateMapping', variable: 'propertyTypes[]', property: 'propertyType', required: false }],
    });
  });

  describe('as bytes around members that are JSON bytes', () => {
    const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
    const members = [{ uuid: 'a', title: 'Appartement "lumineux"' }, { uuid: 'b', title: 'Maison à Besançon' }];

    it.each([
      ['a middle page with filters', { propertyTypes: ['0'], page: '2' }, 35, 2],
      ['an empty result', {}, 0, 1],
      ['a page past the end', { page: '9' }, 12, 9],
    ])('is the same JSON as the object form, key order included: %s', (_case, query, totalItems, page) => {
      const object = hydraCollection({ ...base, members, query, totalItems, page });
      const text = hydraCollectionBytes({ ...base, membersJson: bytes(members), query, totalItems, page });
      expect(text.toString('utf8')).toBe(JSON.stringify(object));
    });

    it('keeps each path in its template when several paths share the mappings', () => {
      const other = hydraCollectionBytes({ ...base, path: '/documents/properties/x/similar-properties', membersJson: bytes([]), query: {}, totalItems: 0, page: 1 });
      const first = hydraCollectionBytes({ ...base, membersJson: bytes([]), query: {}, totalItems: 0, page: 1 });
      expect(JSON.parse(other.toString())['hydra:search']['hydra:template']).toBe('/documents/properties/x/similar-properties{?propertyTypes[]}');
      expect(JSON.parse(first.toString())['hydra:search']['hydra:template']).toBe('/documents/properties{?propertyTypes[]}');
    });
  });

  it('links each page with the query serialised as given, `page` in its own place or last', () => {
    const value = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.constantFrom('price', 'surface'), fc.string()));
    const query = fc.dictionary(fc.constantFrom('page', 'order', 'propertyTypes', 'a&page', 'x', 'includedCities'), value);
    fc.assert(
      fc.property(query, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 60 }), (q, page, totalItems) => {
        const view = hydraCollection({ ...base, query: q, totalItems, page })['hydra:view'];
        const expected = (n: number) => `/documents/properties?${stringifyQuery({ ...q, page: String(n) })}`;
        expect(view['@id']).toBe(expected(page));
        expect(view['hydra:first']).toBe(expected(1));
        expect(view['hydra:last']).toBe(expected(Math.max(1, Math.ceil(totalItems / base.itemsPerPage))));
        if (view['hydra:next'] !== undefined) expect(view['hydra:next']).toBe(expected(page + 1));
      }),
    );
  });
});
