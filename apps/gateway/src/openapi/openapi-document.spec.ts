import { buildOpenApiDocument } from './openapi-document';
import { API_OPERATIONS } from './operations';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(API_OPERATIONS, { version: 'test' }) as {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        {
          description?: string;
          parameters: { name: string; in: string; required: boolean; style?: string; description?: string; schema: Record<string, unknown> }[];
          security?: unknown[];
          responses: Record<string, { headers?: Record<string, { description: string }> }>;
        }
      >
    >;
  };

  it('describes every operation with OpenAPI path templates', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/cities', '/cities/{id}', '/indicators/points_of_interest']));
  });

  it('derives query parameters from the validating schemas', () => {
    const parameters = document.paths['/indicators/points_of_interest']!['get']!.parameters;
    expect(parameters.map((p) => [p.name, p.required])).toEqual([
      ['facilities', true],
      ['lat', true],
      ['lon', true],
      ['radius', true],
    ]);
    const cities = document.paths['/cities']!['get']!.parameters;
    expect(cities.find((p) => p.name === 'polygon')).toMatchObject({ required: false, style: 'deepObject' });
    expect(cities.find((p) => p.name === 'page')?.required).toBe(false);
  });

  it('describes every parameter of the property search with its semantics, and the ignored-parameters header', () => {
    const search = document.paths['/documents/properties']!['get']!;
    const byName = new Map(search.parameters.map((p) => [p.name, p]));
    for (const name of ['propertyTypes[]', 'order[price]', 'expressions', 'budgetMin', 'includedCities[]', 'fromDate', 'withCoherentPrice']) {
      expect(byName.get(name)).toMatchObject({ in: 'query', required: false, description: expect.stringMatching(/\S/) });
    }
    expect(search.parameters.filter((p) => !p.description?.trim()).map((p) => p.name)).toEqual([]);
    expect(byName.get('propertyTypes[]')!.schema).toMatchObject({ type: 'array', items: { type: 'integer', enum: [0, 1, 2, 3, 4, 5, 6] } });
    expect(byName.get('expressions')).toMatchObject({ style: 'deepObject' });
    expect(byName.get('budgetMin')!.description).toMatch(/inclusive/);
    expect(search.responses['200']!.headers!['X-Ignored-Parameters']!.description).toMatch(/ignored/);
    expect(search.description).toMatch(/hydra:totalItems/);
  });

  it('marks health as public and everything else as needing the key', () => {
    expect(document.paths['/health/ready']!['get']!.security).toEqual([]);
    expect(document.paths['/cities']!['get']!.responses['401']).toBeDefined();
  });
});
