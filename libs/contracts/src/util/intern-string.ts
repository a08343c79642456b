/**
 * The single copy V8 keeps of a string's value: the internalized one, which property names use.
 *
 * Ids and repeated values that long-lived indexes keep come from decoded documents and events,
 * and every decode makes a new copy: at 200,000 properties the listings heap held about seven
 * copies of each uuid (skeletons of several collections, hash indexes, the search index, the
 * grouping index), over 2 million strings. Interned, each value is one string however many
 * structures hold it.
 *
 * V8 holds internalized strings weakly: a value nothing uses any more is collected, so this
 * needs no pool of its own and never grows with deleted ids. The object is a dictionary from the
 * start (`Object.create(null)`): a plain `{}` would grow a hidden-class transition per key.
 * About half a microsecond for a uuid.
 */
export function internString(value: string): string {
  const holder = Object.create(null) as Record<string, 0>;
  holder[value] = 0;
  for (const key in holder) return key;
  return value;
}
