import { ProblemException } from './problem';
import { parseQueryString } from './query-string';

const encoded = (value: unknown) => encodeURIComponent(JSON.stringify(value));

function violationOf(raw: string): unknown {
  try {
    parseQueryString(raw);
  } catch (error) {
    if (error instanceof ProblemException) return { status: error.status, violations: error.violations };
    throw error;
  }
  throw new Error(`${raw} was accepted`);
}

describe('structured query parameters written as JSON', () => {
  it('reads expressions, geoShapes and polygon in JSON as their bracket notation', () => {
    const expressions = [[{ word: 'jardin' }, { word: 'travaux', options: { includes: false, strict: true } }]];
    expect(parseQueryString(`expressions=${encoded(expressions)}`)).toEqual(
      parseQueryString('expressions[0][0][word]=jardin&expressions[0][1][word]=travaux&expressions[0][1][options][includes]=false&expressions[0][1][options][strict]=true'),
    );
    const ring = [[2.3, 48.8], [2.4, 48.8], [2.4, 48.9], [2.3, 48.8]];
    expect(parseQueryString(`geoShapes=${encoded([ring])}&page=2`)).toEqual({
      geoShapes: [ring.map((point) => point.map(String))],
      page: '2',
    });
    expect(parseQueryString(`polygon=${encoded([{ lat: 45.7, lon: 4.8 }])}`)).toEqual(parseQueryString('polygon[0][lat]=45.7&polygon[0][lon]=4.8'));
  });

  it('leaves other parameters and non-JSON values as they are', () => {
    expect(parseQueryString(`title=${encoded(['a'])}&expressions=jardin`)).toEqual({ title: '["a"]', expressions: 'jardin' });
  });

  it('refuses JSON that does not parse, nests too deep, lists too much or names a prototype key, naming the parameter', () => {
    expect(violationOf('expressions=[[{"word":')).toMatchObject({ status: 400, violations: [{ propertyPath: 'expressions' }] });
    expect(violationOf(`geoShapes=${encoded([[[[[[1]]]]]])}`)).toMatchObject({ status: 400, violations: [{ propertyPath: 'geoShapes[0][0][0][0][0]' }] });
    expect(violationOf(`polygon=${encoded(Array.from({ length: 1001 }, () => ({ lat: 1, lon: 1 })))}`)).toMatchObject({ status: 400, violations: [{ propertyPath: 'polygon' }] });
    expect(violationOf(`expressions=${encodeURIComponent('[[{"__proto__":{"word":"x"}}]]')}`)).toMatchObject({ status: 400, violations: [{ propertyPath: 'expressions[0][0][__proto__]' }] });
  });
});
