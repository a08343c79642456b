/**
 * How a collection's document bodies are compressed: LZ4 primed with a dictionary made of the
 * collection's own first documents.
 *
 * A document of the listings service is one to four kilobytes (JSON text for collections of plain
 * JSON data, msgpack otherwise, and in stores written before that option) in which most bytes are
 * field names and values its neighbours repeat (types, city names, URLs of the same portals).
 * Compressed alone, a body finds few repeats within itself; primed with one or two documents of
 * the same shape, LZ4 refers back to them. Measured on a store of 244,000 properties, 10,000
 * documents of each kind written at random: 35 MiB of pages with an 8 KiB dictionary of the
 * collection's own documents, against 70 MiB with lmdb's general-purpose dictionary (and 120
 * without compression), at the same write and read cost. Every page of the map that is read stays
 * resident in the process, so the store's file size is most of the service's resident memory.
 *
 * A body compressed with a dictionary reads back only with the same one, so a collection's
 * dictionary is chosen once, by its first commit, and stored with the collection's meta.
 * Collections stored before dictionaries keep lmdb's default one.
 */

/** Dictionary size: one or two documents of each kind. A larger one compressed no better and costs its hashing on every compression. */
export const DICTIONARY_BYTES = 8 * 1024;

/** Bodies shorter than this are stored as they are (lmdb's own default, for its default dictionary, is 1,000). */
export const COMPRESSION_THRESHOLD_BYTES = 200;

/** The dictionary made of a collection's first encoded bodies, or null when there are none. */
export function dictionaryFrom(bodies: readonly Buffer[]): Buffer | null {
  if (bodies.length === 0) return null;
  const dictionary = Buffer.concat(bodies);
  return dictionary.length > DICTIONARY_BYTES ? Buffer.from(dictionary.subarray(0, DICTIONARY_BYTES)) : dictionary;
}

/** lmdb's compression option for a collection's bodies: its own dictionary, or lmdb's default for older collections. */
export function compressionOption(dictionary: Uint8Array | undefined): true | { threshold: number; dictionary: Buffer } {
  if (dictionary === undefined) return true;
  return { threshold: COMPRESSION_THRESHOLD_BYTES, dictionary: Buffer.from(dictionary) };
}
