import { normalizeText, tokenize } from './text-normalization';

describe('text normalisation', () => {
  it('folds case, accents and ligatures', () => {
    expect(normalizeText('ÉTÉ à Noël, cœur')).toBe('ete a noel, coeur');
    expect(normalizeText('Superficie 64 m²')).toBe('superficie 64 m2');
  });

  it('splits words on spaces, punctuation, apostrophes and hyphens', () => {
    expect(tokenize("L'immeuble, rez-de-chaussée : 3 pièces!")).toEqual(['l', 'immeuble', 'rez', 'de', 'chaussee', '3', 'pieces']);
  });

  it('gives no token for a text without letters or digits', () => {
    expect(tokenize(' -- !! ')).toEqual([]);
  });
  it('folds compatibility characters that decompose into capitals', () => {
    expect(normalizeText('19℃, ℌôtel')).toBe('19°c, hotel');
  });
});
