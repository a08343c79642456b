import type { ExpressionGroup } from './criteria';
import { matchesExpressions, parseExpressions, searchableTexts } from './expressions';
import { aPropertyDocument, anAdvert } from './property-document.fixture';

const word = (text: string, options: { includes?: boolean; strict?: boolean } = {}) => ({
  word: text,
  includes: options.includes ?? true,
  strict: options.strict ?? false,
});

const TEXTS = ['Maison avec jardin', 'Gros travaux à prévoir, cave voûtée, proche écoles'];
const matching = (groups: ExpressionGroup[]): boolean => matchesExpressions(groups, TEXTS);

describe('expression matching', () => {
  it('matches everything without groups', () => {
    expect(matching([])).toBe(true);
  });

  it('finds a word prefix unless strict', () => {
    expect(matching([[word('travau')]])).toBe(true);
    expect(matching([[word('travau', { strict: true })]])).toBe(false);
    expect(matching([[word('travaux', { strict: true })]])).toBe(true);
  });

  it('matches only at the start of a word', () => {
    expect(matching([[word('avaux')]])).toBe(false);
  });

  it('ignores case and accents on both sides', () => {
    expect(matching([[word('VOUTEE', { strict: true })]])).toBe(true);
    expect(matching([[word('écol')]])).toBe(true);
    expect(matching([[word('Prevoir')]])).toBe(true);
  });

  it('is neither fuzzy nor stemmed', () => {
    expect(matching([[word('travaus')]])).toBe(false);
    expect(matching([[word('jardins')]])).toBe(false);
  });

  it('excludes a word with includes=false', () => {
    expect(matching([[word('cave', { includes: false })]])).toBe(false);
    expect(matching([[word('piscine', { includes: false })]])).toBe(true);
    // An excluded prefix excludes every word it starts.
    expect(matching([[word('vout', { includes: false })]])).toBe(false);
  });

  it('requires every word of a group', () => {
    expect(matching([[word('jardin'), word('cave')]])).toBe(true);
    expect(matching([[word('jardin'), word('piscine')]])).toBe(false);
    expect(matching([[word('jardin'), word('cave', { includes: false })]])).toBe(false);
  });

  it('matches when any group holds', () => {
    expect(matching([[word('piscine')], [word('jardin')]])).toBe(true);
    expect(matching([[word('piscine')], [word('terrasse')]])).toBe(false);
  });

  it('reads a word of several tokens as a phrase within one text', () => {
    expect(matching([[word('gros travaux')]])).toBe(true);
    expect(matching([[word('gros trav')]])).toBe(true);
    expect(matching([[word('gro travaux')]])).toBe(false);
    expect(matching([[word('travaux gros')]])).toBe(false);
    // The phrase would span the first text's end and the second text's start.
    expect(matching([[word('jardin gros')]])).toBe(false);
  });
});

describe('searched texts', () => {
  it('are the titles and descriptions of the property and of every advert', () => {
    const doc = aPropertyDocument({
      title: 'T1',
      description: 'D1',
      adverts: [anAdvert({ title: 'T2', description: 'D2' }), anAdvert({ title: 'T3', description: 'Parquet ancien' })],
    });
    expect(searchableTexts(doc)).toEqual(['T1', 'D1', 'T2', 'D2', 'T3', 'Parquet ancien']);
    expect(matchesExpressions([[word('parquet')]], searchableTexts(doc))).toBe(true);
  });
});

describe('expression parsing', () => {
  it('accepts the options as booleans from a JSON saved search', () => {
    expect(parseExpressions([[{ word: ' cave ', options: { includes: false, strict: true } }]]).groups).toEqual([[word('cave', { includes: false, strict: true })]]);
  });

  it('drops empty groups', () => {
    expect(parseExpressions([[], [{ word: 'cave' }]]).groups).toEqual([[word('cave')]]);
  });

  it('refuses a word longer than 100 characters', () => {
    expect(parseExpressions([[{ word: 'a'.repeat(101) }]]).violations).toEqual([
      { propertyPath: 'expressions[0][0][word]', message: 'must be at most 100 characters' },
    ]);
  });
});
