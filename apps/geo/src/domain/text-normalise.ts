/**
 * Text keys for matching French place names typed by people.
 *
 * Users type "st etienne", "Saint-Étienne", "SAINT ETIENNE" or "l hay les roses" for the same
 * places, so every lookup compares a folded key rather than the raw name: diacritics dropped,
 * lower case, ligatures spelled out, hyphens/apostrophes/punctuation turned into single spaces,
 * and the customary abbreviations `st`/`ste` (and `s`/`ste` variants with a dot) expanded.
 */

const ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['st', 'saint'],
  ['ste', 'sainte'],
  ['sts', 'saints'],
  ['stes', 'saintes'],
]);

const LIGATURES: ReadonlyArray<readonly [RegExp, string]> = [
  [/œ/g, 'oe'],
  [/æ/g, 'ae'],
  [/ß/g, 'ss'],
];

const NON_ASCII = /[^\x20-\x7e]/;
const HAS_LIGATURE = /[œæß]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;

/** Lower case, no diacritics, ligatures spelled out; punctuation is kept. */
export function foldAccents(text: string): string {
  let folded = text.toLowerCase();
  // Most names are plain ASCII; skipping Unicode normalisation for them halves directory build time.
  if (!NON_ASCII.test(folded)) return folded;
  if (HAS_LIGATURE.test(folded)) for (const [pattern, replacement] of LIGATURES) folded = folded.replace(pattern, replacement);
  // NFD splits "é" into "e" + combining accent; dropping the combining marks keeps the base letter.
  return folded.normalize('NFD').replace(COMBINING_MARKS, '');
}

/** Words of a folded name: every run of letters/digits, in order. */
export function tokens(text: string): string[] {
  return foldAccents(text).split(/[^a-z0-9]+/).filter((token) => token.length > 0);
}

/**
 * Matching key: tokens joined by one space with `st`/`ste` expanded.
 * `normaliseName("L'Haÿ-les-Roses") === "l hay les roses"`,
 * `normaliseName("St-Étienne") === "saint etienne"`.
 */
export function normaliseName(text: string): string {
  return tokens(text)
    .map((token) => ABBREVIATIONS.get(token) ?? token)
    .join(' ');
}

/**
 * Like {@link normaliseName} but keeps a trailing space when the input ends with a separator.
 * Autocomplete needs it: "saint " must not match "saintes", while "saint" may.
 */
export function normaliseQuery(text: string): string {
  const key = normaliseName(text);
  if (key.length === 0) return key;
  return /[^\p{L}\p{N}]$/u.test(text) ? `${key} ` : key;
}

/** URL slug of a name: `slugify("Saint-Étienne") === "saint-etienne"`. Abbreviations are not expanded. */
export function slugify(text: string): string {
  return tokens(text).join('-');
}

/** True when both names have the same matching key. */
export function sameName(a: string, b: string): boolean {
  return normaliseName(a) === normaliseName(b);
}
