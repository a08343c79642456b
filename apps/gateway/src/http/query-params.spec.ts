import { z } from 'zod';
import { ProblemException } from './problem';
import { pageParams, queryParam, validateQuery } from './query-params';

const schema = z.object({
  ...pageParams({ defaultItemsPerPage: 10, maxItemsPerPage: 30 }),
  radius: queryParam.number({ min: 0 }).optional(),
  expired: queryParam.nullableBoolean().optional(),
  furnished: queryParam.boolean().optional(),
  propertyTypes: queryParam.array(queryParam.int({ min: 0, max: 6 })).optional(),
  order: z.object({ price: queryParam.order().optional() }).strict().optional(),
});

function violationsOf(query: unknown) {
  try {
    validateQuery(schema, query);
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemException);
    return (error as ProblemException).violations ?? [];
  }
  throw new Error('expected a validation failure');
}

describe('query parameter validation', () => {
  it('applies defaults and converts types', () => {
    expect(validateQuery(schema, { propertyTypes: ['0', '1'], furnished: 'true', expired: 'null', radius: '2.5' })).toEqual({
      page: 1,
      itemsPerPage: 10,
      propertyTypes: [0, 1],
      furnished: true,
      expired: null,
      radius: 2.5,
    });
  });

  it('accepts a single value where an array is expected', () => {
    expect(validateQuery(schema, { propertyTypes: '3' }).propertyTypes).toEqual([3]);
  });

  it('names each bad parameter in bracket notation', () => {
    const violations = violationsOf({ itemsPerPage: '31', page: 'two', propertyTypes: ['0', '9'], order: { price: 'up' } });
    expect(violations.map((v) => v.propertyPath).sort()).toEqual(['itemsPerPage', 'order[price]', 'page', 'propertyTypes[1]']);
    expect(violations.find((v) => v.propertyPath === 'itemsPerPage')?.message).toMatch(/at most 30/);
  });

  it('rejects unknown keys inside strict objects', () => {
    expect(violationsOf({ order: { colour: 'asc' } })[0]?.propertyPath).toBe('order[colour]');
  });

  it('rejects malformed booleans and numbers', () => {
    const paths = violationsOf({ furnished: 'yes', radius: '1e', expired: 'maybe' }).map((v) => v.propertyPath).sort();
    expect(paths).toEqual(['expired', 'furnished', 'radius']);
  });
});
