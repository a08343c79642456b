import fc from 'fast-check';
import { z } from 'zod';
import { HTTP_URL_MESSAGE, httpUrl, httpUrlByParsing, isPlainHttpUrl } from './http-url.schema';

/** What a schema makes of a value: accepted with its output, or the messages it gives. */
function outcomeOf(schema: z.ZodType, value: unknown): { ok: true; data: unknown } | { ok: false; messages: string[] } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, messages: parsed.error.issues.map((issue) => issue.message) };
}

/** URL-shaped strings built from parts near the pattern's edges: case, ports, IPs, punycode, odd path characters, spaces. */
const label = fc.oneof(
  fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/),
  fc.constantFrom('xn--a', 'xn--zz', 'xn--bcher-kva', 'ex--ample', '-lead', 'trail-', 'ÉCOLE', 'école', 'Img', '1', '0x1f', '127', 'a'.repeat(64), ''),
);
const host = fc.oneof(
  fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.constantFrom('fr', 'com', 'example', 'c', 'F R', '1', 'XN--P1AI', '')).map(([labels, tld]) => [...labels, tld].join('.')),
  fc.constantFrom('127.0.0.1', '[::1]', 'localhost', 'a.b.c.', `${'a'.repeat(60)}.`.repeat(5) + 'fr', 'user:pw@img.example.fr', 'img.example.fr:8080', 'img.example.fr:99999'),
);
const path = fc.oneof(
  fc.constant(''),
  fc.array(fc.constantFrom('/', 'a', '1', '-', '.', '..', '_', '~', '%', '%2F', '%zz', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', ':', '@', '\\', '?', '#', ' ', '\t', '\n', 'é', '"', '<', '|', '^', '`', '{'), {
    maxLength: 12,
  }).map((parts) => `/${parts.join('')}`),
);
const urlLike = fc
  .tuple(fc.constantFrom('http://', 'https://', 'HTTPS://', 'ftp://', 'javascript:', 'https:/', 'https:', '//', ' https://', '\thttp://'), host, path, fc.constantFrom('', ' ', '\n', '?q=1', '#top'))
  .map(([scheme, h, p, tail]) => `${scheme}${h}${p}${tail}`);

describe('httpUrl', () => {
  describe('given strings shaped like URLs, near every edge of the plain pattern', () => {
    it('when checked, then it gives the verdict, the value and the messages of the parsing rule', () => {
      fc.assert(
        fc.property(urlLike, (value) => {
          expect(outcomeOf(httpUrl, value)).toEqual(outcomeOf(httpUrlByParsing, value));
        }),
        { numRuns: 20_000 },
      );
    });
  });

  describe('given any string or non-string', () => {
    it('when checked, then it agrees with the parsing rule', () => {
      fc.assert(
        fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything()), (value) => {
          expect(outcomeOf(httpUrl, value)).toEqual(outcomeOf(httpUrlByParsing, value));
        }),
        { numRuns: 5_000 },
      );
    });
  });

  describe('given the URLs crawlers send for pictures and pages', () => {
    it.each(['https://img.example.fr/ad-1/0.jpg', 'http://photos.agence-dupont.example/ref_12-3.jpeg', 'https://www.portal.example/annonces/vente/appartement/paris-11e/123456789/'])(
      'when checked, then %s is accepted as it is, without being parsed',
      (value) => {
        expect(isPlainHttpUrl(value)).toBe(true);
        expect(httpUrl.parse(value)).toBe(value);
      },
    );
  });

  describe('given URLs the parser must look at', () => {
    it.each([
      ['an upper-case host', 'https://IMG.example.fr/1.jpg'],
      ['a port', 'https://img.example.fr:8080/1.jpg'],
      ['a query', 'https://img.example.fr/1.jpg?w=200'],
      ['a punycode label', 'https://xn--bcher-kva.example/1.jpg'],
      ['surrounding spaces', ' https://img.example.fr/1.jpg '],
    ])('when checked, then one with %s is not taken by the pattern', (_, value) => {
      expect(isPlainHttpUrl(value)).toBe(false);
    });

    it('when the parser accepts one, then its value is the parsing rule’s (trimmed)', () => {
      expect(httpUrl.parse(' https://img.example.fr/1.jpg?w=200 ')).toBe('https://img.example.fr/1.jpg?w=200');
    });

    it.each([
      ['another protocol', 'ftp://img.example.fr/1.jpg'],
      ['an IP address', 'https://127.0.0.1/1.jpg'],
      ['no domain', 'https://localhost/1.jpg'],
    ])('when one has %s, then it is rejected with the URL message', (_, value) => {
      expect(outcomeOf(httpUrl, value)).toEqual({ ok: false, messages: [HTTP_URL_MESSAGE] });
    });

    it('when one has punycode the parser refuses, then it is rejected', () => {
      expect(outcomeOf(httpUrl, 'https://xn--zz.example/1.jpg')).toEqual({ ok: false, messages: [HTTP_URL_MESSAGE] });
    });
  });

  describe('given a value that is not a string', () => {
    it('when checked, then it is rejected with the URL message', () => {
      expect(outcomeOf(httpUrl, 42)).toEqual({ ok: false, messages: [HTTP_URL_MESSAGE] });
    });
  });

  describe('given the API description', () => {
    it('when written as JSON Schema, then it is a string with the uri format and its length bound', () => {
      expect(z.toJSONSchema(httpUrl.max(2048))).toMatchObject({ type: 'string', format: 'uri', maxLength: 2048 });
    });
  });
});
