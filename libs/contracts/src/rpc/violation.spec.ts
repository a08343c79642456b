import { z } from 'zod';
import { UNKNOWN_NAME_MESSAGE, violationsFromZod } from './violation';

function violationsOf(schema: z.ZodType, input: unknown, prefix?: PropertyKey[]) {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error('expected the input to be refused');
  return violationsFromZod(parsed.error, prefix);
}

describe('violationsFromZod', () => {
  const query = z.object({ itemsPerPage: z.number().optional(), order: z.object({ price: z.enum(['asc', 'desc']) }).strict().optional() }).strict();

  it('names each unknown key by its own path, so a misspelt parameter is told by the name the caller typed', () => {
    expect(violationsOf(query, { itemsPerPag: 3, foo: 1 })).toEqual([
      { propertyPath: 'itemsPerPag', message: UNKNOWN_NAME_MESSAGE },
      { propertyPath: 'foo', message: UNKNOWN_NAME_MESSAGE },
    ]);
  });

  it('writes a nested unknown key in bracket notation, under the prefix', () => {
    expect(violationsOf(query, { order: { price: 'asc', prix: 'desc' } })).toEqual([{ propertyPath: 'order[prix]', message: UNKNOWN_NAME_MESSAGE }]);
    expect(violationsOf(query, { order: { price: 'asc', prix: 'desc' } }, ['query'])).toEqual([
      { propertyPath: 'query[order][prix]', message: UNKNOWN_NAME_MESSAGE },
    ]);
  });

  it('keeps the other issues as they are, and calls a bad whole input (root)', () => {
    expect(violationsOf(query, { itemsPerPage: 'x', extra: 1 }).map((v) => v.propertyPath)).toEqual(['itemsPerPage', 'extra']);
    expect(violationsOf(query, 'not an object')).toEqual([{ propertyPath: '(root)', message: expect.any(String) }]);
  });
});
