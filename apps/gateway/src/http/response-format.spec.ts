import { negotiateResponseFormat, toPlainJson } from './response-format';

describe('negotiateResponseFormat', () => {
  it.each([
    [undefined, 'jsonld'],
    ['', 'jsonld'],
    ['*/*', 'jsonld'],
    ['application/*', 'jsonld'],
    ['application/ld+json', 'jsonld'],
    ['application/json', 'json'],
    ['application/json, application/ld+json', 'json'],
    ['application/ld+json, application/json', 'jsonld'],
    ['application/ld+json;q=0.5, application/json', 'json'],
    ['application/json;q=0.9, application/ld+json', 'jsonld'],
    ['text/html, application/json;q=0.1', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'jsonld'],
    ['application/json; charset=utf-8', 'json'],
  ])('Accept %p → %p', (accept, format) => {
    expect(negotiateResponseFormat(accept)).toBe(format);
  });

  it.each(['text/html', 'application/xml', 'application/json;q=0, application/ld+json;q=0', 'image/*'])('refuses Accept %p', (accept) => {
    expect(negotiateResponseFormat(accept)).toBeNull();
  });
});

describe('toPlainJson', () => {
  it('answers a collection as the array of its members, without JSON-LD keys at any level', () => {
    const collection = {
      '@context': '/contexts/City',
      '@id': '/cities',
      '@type': 'hydra:Collection',
      'hydra:member': [{ '@id': '/cities/1', '@type': 'City', name: 'Lyon', department: { '@id': '/departments/69', '@type': 'Department', name: 'Rhône' } }],
      'hydra:totalItems': 1,
      'hydra:view': { '@id': '/cities?page=1', '@type': 'hydra:PartialCollectionView' },
    };
    expect(toPlainJson(collection)).toEqual([{ name: 'Lyon', department: { name: 'Rhône' } }]);
  });

  it('answers a resource as its fields, IRIs held as values kept', () => {
    const search = { '@context': '/contexts/Search', '@id': '/searches/x', '@type': 'Search', id: 'x', includedCities: ['/cities/69123'], budgetMax: null };
    expect(toPlainJson(search)).toEqual({ id: 'x', includedCities: ['/cities/69123'], budgetMax: null });
  });
});
