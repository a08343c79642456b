import { hydraCollection } from './hydra-collection';

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
});
