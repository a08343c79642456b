/**
 * Heap estimates for the parts of the index that are JavaScript objects rather than typed arrays,
 * for `memoryBytes()`. Figures are V8's on 64-bit Node without pointer compression (the default
 * build): 8-byte slots, a 16-byte string header and characters padded to 8 bytes.
 */

/** A Map entry: key, value and chain slots, plus its share of the hash buckets at a typical load. */
export const MAP_ENTRY_BYTES = 40;

/** One slot of a JavaScript array. */
export const ARRAY_SLOT_BYTES = 8;

// Code points up to U+00FF (NUL included): V8 stores such strings one byte per character.
// eslint-disable-next-line no-control-regex
const LATIN1 = /^[\u0000-\u00ff]*$/;

/** A flat string: Latin-1 text takes a byte per character, anything else two. */
export function stringBytes(text: string): number {
  const characterBytes = LATIN1.test(text) ? text.length : text.length * 2;
  return 16 + Math.ceil(characterBytes / 8) * 8;
}
