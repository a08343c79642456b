import { buildOpenApiDocument } from './openapi-document';
import { API_OPERATIONS } from './operations';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(API_OPERATIONS, { version: 'test' }) as {
    openapi: string;
    paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean; style?: string }[]; security?: unknown[]; responses: Record<string, unknown> }>>;
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

  it('marks health as public and everything else as needing the key', () => {
    expect(document.paths['/health/ready']!['get']!.security).toEqual([]);
    expect(document.paths['/cities']!['get']!.responses['401']).toBeDefined();
  });
});
