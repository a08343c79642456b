import fc from 'fast-check';
import { TokenDictionary } from './token-dictionary';

const tokensOf = (dictionary: TokenDictionary, prefix: string): string[] => {
  const { from, to } = dictionary.prefixRange(prefix);
  return Array.from({ length: to - from }, (_, i) => dictionary.tokenOf(dictionary.idAtRank(from + i)));
};

describe('TokenDictionary', () => {
  it('gives each token one stable id', () => {
    const dictionary = new TokenDictionary();
    const travaux = dictionary.intern('travaux');
    expect(dictionary.intern('cuisine')).not.toBe(travaux);
    expect(dictionary.intern('travaux')).toBe(travaux);
    expect(dictionary.idOf('travaux')).toBe(travaux);
    expect(dictionary.idOf('travail')).toBeUndefined();
    expect(dictionary.tokenOf(travaux)).toBe('travaux');
    expect(dictionary.size).toBe(2);
  });

  it('maps a prefix to the contiguous range of the tokens it starts, including tokens added after an earlier query', () => {
    const dictionary = new TokenDictionary();
    ['travaux', 'travail', 'trave', 'tra', 'cuisine', 'tram'].forEach((token) => dictionary.intern(token));
    expect(tokensOf(dictionary, 'trav')).toEqual(['travail', 'travaux', 'trave']);
    dictionary.intern('travée');
    dictionary.intern('a');
    dictionary.intern('trb');
    expect(tokensOf(dictionary, 'trav')).toEqual(['travail', 'travaux', 'trave', 'travée']);
    expect(tokensOf(dictionary, 'tra')).toEqual(['tra', 'tram', 'travail', 'travaux', 'trave', 'travée'].sort());
    expect(tokensOf(dictionary, 'zzz')).toEqual([]);
    expect(tokensOf(dictionary, 'travaux')).toEqual(['travaux']);
  });

  it('keeps every id through the growth of its table, long tokens included', () => {
    const dictionary = new TokenDictionary();
    const tokens = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? `exceptionnellement${i}` : `t${i.toString(36)}`));
    const ids = tokens.map((token) => dictionary.intern(token));
    expect(tokens.filter((token, i) => dictionary.idOf(token) !== ids[i])).toEqual([]);
    const text = `un ${tokens[700]} deux`;
    expect(dictionary.internRange(text, 3, 3 + tokens[700]!.length)).toBe(ids[700]);
    expect(tokensOf(dictionary, 'exceptionnellement7').length).toBe(tokens.filter((token) => token.startsWith('exceptionnellement7')).length);
  });

  it('finds with a prefix exactly the tokens startsWith accepts', () => {
    const token = fc.string({ unit: fc.constantFrom('a', 'b', 'é', 'z', '2', '\u{1F600}'), maxLength: 5 });
    fc.assert(
      fc.property(fc.array(fc.array(token.filter((t) => t !== ''), { maxLength: 20 }), { maxLength: 4 }), token, (batches, prefix) => {
        const dictionary = new TokenDictionary();
        const all = new Set<string>();
        for (const batch of batches) {
          batch.forEach((t) => {
            dictionary.intern(t);
            all.add(t);
          });
          const expected = [...all].filter((t) => t.startsWith(prefix)).sort();
          expect(tokensOf(dictionary, prefix)).toEqual(expected);
        }
      }),
    );
  });
});
