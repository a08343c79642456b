import { parseQueryString, QUERY_LIMITS, stringifyQuery } from './query-string';
import { ProblemException } from './problem';

describe('parseQueryString (bracket notation)', () => {
  it('reads arrays, nested orders, expressions and geo shapes as the spec writes them', () => {
    const query = parseQueryString(
      'propertyTypes[]=0&propertyTypes[]=1&order[price]=asc&expressions[0][1][options][includes]=false' +
        '&expressions[0][1][word]=jardin&geoShapes[0][2][1]=48.85',
    );
    expect(query['propertyTypes']).toEqual(['0', '1']);
    expect(query['order']).toEqual({ price: 'asc' });
    // qs compacts sparse arrays: the word keeps its group (0), its position in the group is relative.
    expect(query['expressions']).toEqual([[{ options: { includes: 'false' }, word: 'jardin' }]]);
    expect(query['geoShapes']).toEqual([[['48.85']]]);
  });

  it('keeps a 200-item indexed array an array', () => {
    const raw = Array.from({ length: 200 }, (_, i) => `geoShapes[0][${i}][0]=${i}`).join('&');
    const shape = (parseQueryString(raw)['geoShapes'] as unknown[][])[0]!;
    expect(Array.isArray(shape)).toBe(true);
    expect(shape).toHaveLength(200);
  });

  it('refuses nesting deeper than the limit instead of flattening it silently', () => {
    expect(() => parseQueryString('a[b][c][d][e][f][g]=1')).toThrow(ProblemException);
  });

  it('refuses, by name, parameters qs would drop because they reach an object prototype', () => {
    for (const raw of ['__proto__[x]=1', 'constructor[prototype][polluted]=1', 'order[hasOwnProperty]=asc', '%5F%5Fproto%5F%5F%5Bx%5D=1']) {
      const error = (() => {
        try {
          parseQueryString(raw);
          return null;
        } catch (failure) {
          return failure as ProblemException;
        }
      })();
      expect(error).toBeInstanceOf(ProblemException);
      expect(error?.status).toBe(400);
      expect(error?.violations?.[0]?.propertyPath).toBe(decodeURIComponent(raw.slice(0, raw.indexOf('='))));
    }
    expect(parseQueryString('price=1&order[price]=asc')).toEqual({ price: '1', order: { price: 'asc' } });
  });

  it('refuses too many parameters', () => {
    const raw = Array.from({ length: QUERY_LIMITS.parameterLimit + 1 }, (_, i) => `p${i}=1`).join('&');
    expect(() => parseQueryString(raw)).toThrow(/parameter/i);
  });

  describe('arrays of at most QUERY_LIMITS.arrayLimit items, in every notation', () => {
    const limit = QUERY_LIMITS.arrayLimit;
    const repeat = (count: number, part: (i: number) => string) => Array.from({ length: count }, (_, i) => part(i)).join('&');

    function expectArrayLimitProblem(raw: string, parameter: string): void {
      let caught: unknown;
      try {
        parseQueryString(raw);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ProblemException);
      const problem = caught as ProblemException;
      expect(problem.status).toBe(400);
      expect(problem.detail).toBe(`The query string cannot be parsed: ${parameter} must have at most ${limit} items.`);
      expect(problem.violations).toEqual([{ propertyPath: parameter, message: `must have at most ${limit} items` }]);
    }

    it('accepts exactly the limit in each notation', () => {
      expect(parseQueryString(repeat(limit, (i) => `a[]=${i}`))['a']).toHaveLength(limit);
      expect(parseQueryString(repeat(limit, (i) => `a[${i}]=${i}`))['a']).toHaveLength(limit);
      expect(parseQueryString(repeat(limit, (i) => `a=${i}`))['a']).toHaveLength(limit);
    });

    it('refuses one item more with a[]=, naming the parameter', () => {
      expectArrayLimitProblem(repeat(limit + 1, (i) => `propertyTypes[]=${i}`), 'propertyTypes');
      expectArrayLimitProblem(repeat(limit + 1, (i) => `propertyTypes%5B%5D=${i}`), 'propertyTypes');
    });

    it('refuses one item more with a[0]= … a[1000]=', () => {
      expectArrayLimitProblem(repeat(limit + 1, (i) => `propertyTypes[${i}]=${i}`), 'propertyTypes');
    });

    it('refuses an index beyond the limit instead of turning the array into an object', () => {
      expectArrayLimitProblem(`${repeat(3, (i) => `zipcode[${i}]=7500${i}`)}&zipcode[${limit + 1}]=75011`, 'zipcode');
      expectArrayLimitProblem(`geoShapes[0][${limit * 5}][0]=48.85`, 'geoShapes[0]');
    });

    it('refuses one item more with a repeated a=', () => {
      expectArrayLimitProblem(repeat(limit + 1, (i) => `insee=${i}`), 'insee');
    });

    it('counts the items of one array across notations', () => {
      const half = Math.ceil((limit + 1) / 2);
      expectArrayLimitProblem(`${repeat(half, (i) => `insee[]=${i}`)}&${repeat(half, (i) => `insee=${i}`)}`, 'insee');
      expectArrayLimitProblem(`${repeat(half, (i) => `insee[${i}]=${i}`)}&${repeat(half, (i) => `insee[]=${i}`)}`, 'insee');
    });

    it('names a nested array by its bracket path', () => {
      expectArrayLimitProblem(repeat(limit + 1, (i) => `geoShapes[0][${i}][0]=${i}`), 'geoShapes[0]');
      expectArrayLimitProblem(repeat(limit + 1, (i) => `order[keys][]=${i}`), 'order[keys]');
    });
  });

  it('answers 414 for an absurdly long query string', () => {
    try {
      parseQueryString(`q=${'x'.repeat(QUERY_LIMITS.maxLength + 1)}`);
      throw new Error('expected a failure');
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemException);
      expect((error as ProblemException).status).toBe(414);
    }
  });

  it('does not let __proto__ reach object prototypes', () => {
    expect(() => parseQueryString('__proto__[polluted]=yes&a=1')).toThrow(ProblemException);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('round-trips through stringifyQuery', () => {
    const query = parseQueryString('order[price]=asc&propertyTypes[0]=0&propertyTypes[1]=1&page=2');
    expect(parseQueryString(stringifyQuery(query))).toEqual(query);
  });
});
