import fc from 'fast-check';
import { matchesExpressions, tokenize, wordAppears, type ExpressionGroup } from '@immo/property-criteria';
import { Bitset } from './bitset';
import { TextIndex } from './text-index';

/** Texts as search rows carry them. */
const rowTexts = (texts: readonly string[]): string[] => texts.map((text) => tokenize(text).join(' ')).filter((text) => text !== '');

const VOCABULARY = ['salle', 'de', 'bain', 'bains', 'Salle de bain', "salle d'eau", 'rez-de-chaussée', 'Travaux', 'travail', 'cœur', 'coeur', 'Été', 'm²', 'm2', 'de de'];
const text = fc.array(fc.constantFrom(...VOCABULARY), { maxLength: 6 }).map((words) => words.join(' '));
const word = fc.constantFrom('salle de b', 'salle de bain', 'de', 'de de', 'bain', 'ba', 'trav', 'TRAVAUX', 'coeur', 'cœ', 'ete', 'm2', 'rez de', 'eau', 'x', 'salle d');

describe('TextIndex', () => {
  const build = (docs: readonly string[][]): TextIndex => {
    const index = new TextIndex();
    docs.forEach((texts, doc) => index.set(doc, rowTexts(texts)));
    return index;
  };
  const all = (count: number): Bitset => Bitset.of(Array.from({ length: count }, (_, doc) => doc));

  it('finds a prefix, a whole word and a phrase as the reference does', () => {
    const index = build([['Belle salle de bains, travaux'], ['Salle de séjour', 'bain'], ['Rez-de-chaussée']]);
    const within = all(3);
    expect(index.appearing({ word: 'salle de bain', strict: false }, within).toArray()).toEqual([0]);
    expect(index.appearing({ word: 'salle de bain', strict: true }, within).toArray()).toEqual([]);
    expect(index.appearing({ word: 'bain', strict: true }, within).toArray()).toEqual([1]);
    expect(index.appearing({ word: 'travau', strict: false }, within).toArray()).toEqual([0]);
    expect(index.appearing({ word: 'REZ DE CHAUSSÉE', strict: true }, within).toArray()).toEqual([2]);
    expect(index.appearing({ word: 'salle', strict: true }, Bitset.of([1, 2])).toArray()).toEqual([1]);
  });

  it('never lets a phrase span two texts', () => {
    const index = build([['Grande salle', 'de bain']]);
    expect(index.appearing({ word: 'salle de bain', strict: false }, all(1)).toArray()).toEqual([]);
  });

  it('reflects replaced and removed texts', () => {
    const index = build([['travaux à prévoir'], ['cuisine']]);
    index.set(0, rowTexts(['refait à neuf']));
    expect(index.appearing({ word: 'travaux', strict: false }, all(2)).toArray()).toEqual([]);
    expect(index.appearing({ word: 'neuf', strict: false }, all(2)).toArray()).toEqual([0]);
    index.remove(1);
    expect(index.appearing({ word: 'cuisine', strict: false }, all(2)).toArray()).toEqual([]);
    index.set(1, rowTexts(['cuisine équipée']));
    expect(index.appearing({ word: 'cuisine equipee', strict: true }, all(2)).toArray()).toEqual([1]);
  });

  it('sees a changed text whose tokens begin like the old ones', () => {
    const index = build([['salle de bain']]);
    index.set(0, ['salle de']);
    expect(index.appearing({ word: 'bain', strict: false }, all(1)).toArray()).toEqual([]);
    index.set(0, ['salle de ', 'bain']);
    expect(index.appearing({ word: 'salle de bain', strict: false }, all(1)).toArray()).toEqual([]);
    expect(index.appearing({ word: 'bain', strict: true }, all(1)).toArray()).toEqual([0]);
    index.set(0, ['', 'salle  de bain']);
    expect(index.appearing({ word: 'salle de bain', strict: true }, all(1)).toArray()).toEqual([0]);
    index.set(0, ['salle']);
    index.set(0, ['salle', 'bain']);
    expect(index.appearing({ word: 'bain', strict: true }, all(1)).toArray()).toEqual([0]);
    index.set(0, []);
    expect(index.appearing({ word: 'salle', strict: false }, all(1)).toArray()).toEqual([]);
  });

  it('agrees with wordAppears on every document and word', () => {
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 12 }), word, fc.boolean(), (docs, searched, strict) => {
        const index = build(docs);
        const expected = docs.flatMap((texts, doc) => (wordAppears({ word: searched, strict }, texts.map(tokenize)) ? [doc] : []));
        expect(index.appearing({ word: searched, strict }, all(docs.length)).toArray()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with matchesExpressions on groups of included and excluded words', () => {
    const condition = fc.record({ word, includes: fc.boolean(), strict: fc.boolean() });
    const groups = fc.array(fc.array(condition, { minLength: 1, maxLength: 3 }), { maxLength: 3 }) as fc.Arbitrary<ExpressionGroup[]>;
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 3 }), { maxLength: 12 }), groups, (docs, expressionGroups) => {
        const index = build(docs);
        const expected = docs.flatMap((texts, doc) => (matchesExpressions(expressionGroups, texts) ? [doc] : []));
        const within = all(docs.length);
        expect(index.matching(expressionGroups, within).toArray()).toEqual(expected);
        expect(within.count()).toBe(docs.length);
      }),
      { numRuns: 300 },
    );
  });
});
