/**
 * Text folding and word splitting for `expressions`, shared with any token index built later so
 * that the index and the reference predicate can never disagree on what a word is.
 *
 * Folding: lower case, accents dropped (NFKD then combining marks removed: "É" → "e"; the
 * compatibility form also turns "m²" into "m2" and "ﬁ" into "fi"), and the ligatures NFKD keeps
 * spelled out ("œ" → "oe", as French keyboards and publishers write either). No stemming, no
 * stop words, no spelling tolerance: a search word finds what it spells.
 */

const LIGATURES: ReadonlyArray<readonly [RegExp, string]> = [
  [/œ/g, 'oe'],
  [/æ/g, 'ae'],
  [/ß/g, 'ss'],
];

const COMBINING_MARKS = /[\u0300-\u036f]/g;
// Letters and digits of any script survive folding; everything else separates words.
const WORD_SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Case- and accent-folded text; punctuation is kept. */
export function normalizeText(text: string): string {
  let folded = text.toLowerCase();
  for (const [pattern, replacement] of LIGATURES) folded = folded.replace(pattern, replacement);
  // Lower case again after NFKD: compatibility characters decompose into capitals ("℃" → "°C").
  return folded.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}

/**
 * Words of a text, folded, in order. Apostrophes and hyphens separate words, so "l'immeuble"
 * yields "l", "immeuble" and "rez-de-chaussée" yields "rez", "de", "chaussee".
 */
export function tokenize(text: string): string[] {
  return normalizeText(text)
    .split(WORD_SEPARATORS)
    .filter((token) => token.length > 0);
}
