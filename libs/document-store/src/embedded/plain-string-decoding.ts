/**
 * Imported before `lmdb` and `msgpackr`, whose native string extraction must be off before they
 * load. With it on, msgpackr decodes a run of short strings as one string and hands out slices of
 * it; a slice keeps its whole parent alive, so an id kept from a decoded document (a skeleton, an
 * index key, grouping facts) held the text of the document it came from. Measured at 20,000
 * properties: about 46 MiB of such parents on the listings heap. Decoding without it measured as
 * fast on property documents.
 */
process.env['MSGPACKR_NATIVE_ACCELERATION_DISABLED'] ??= 'true';
