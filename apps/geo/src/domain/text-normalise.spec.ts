import { foldAccents, normaliseName, normaliseQuery, sameName, slugify, tokens } from './text-normalise';

describe('text normalisation', () => {
  it('folds accents, case, ligatures, hyphens and apostrophes', () => {
    expect(normaliseName("L'Haÿ-les-Roses")).toBe('l hay les roses');
    expect(normaliseName('L’HAŸ LES ROSES')).toBe('l hay les roses');
    expect(normaliseName('Œuilly')).toBe('oeuilly');
    expect(normaliseName('  Saint-Étienne  ')).toBe('saint etienne');
    expect(foldAccents('Île-de-France')).toBe('ile-de-france');
    expect(tokens("Val-d'Oise")).toEqual(['val', 'd', 'oise']);
  });

  it('expands st/ste into saint/sainte as whole words only', () => {
    expect(normaliseName('St-Étienne')).toBe('saint etienne');
    expect(normaliseName('ste maxime')).toBe('sainte maxime');
    expect(normaliseName('St. Denis')).toBe('saint denis');
    expect(normaliseName('Stains')).toBe('stains');
    expect(sameName('Saint-Étienne', 'ST ETIENNE')).toBe(true);
  });

  it('keeps a trailing separator in queries so a finished word is not read as a prefix', () => {
    expect(normaliseQuery('saint ')).toBe('saint ');
    expect(normaliseQuery('saint')).toBe('saint');
    expect(normaliseQuery('   ')).toBe('');
  });

  it('builds ASCII slugs', () => {
    expect(slugify('Saint-Étienne')).toBe('saint-etienne');
    expect(slugify("L'Haÿ-les-Roses")).toBe('l-hay-les-roses');
    expect(slugify('Paris 15e Arrondissement')).toBe('paris-15e-arrondissement');
  });
});
