import { compressionOption, COMPRESSION_THRESHOLD_BYTES, DICTIONARY_BYTES, dictionaryFrom } from './compression-dictionary';

describe('compression dictionary', () => {
  it('is made of the first bodies, in order, cut at its size', () => {
    const bodies = [Buffer.alloc(5_000, 1), Buffer.alloc(5_000, 2), Buffer.alloc(5_000, 3)];
    const dictionary = dictionaryFrom(bodies);
    expect(dictionary).toHaveLength(DICTIONARY_BYTES);
    expect(dictionary![0]).toBe(1);
    expect(dictionary![5_000]).toBe(2);
    expect(dictionaryFrom([Buffer.from('small')])?.toString()).toBe('small');
  });

  it('is null when a commit writes no body to the collection', () => {
    expect(dictionaryFrom([])).toBeNull();
  });

  it("compresses with the collection's dictionary, or lmdb's default for a collection stored without one", () => {
    expect(compressionOption(undefined)).toBe(true);
    const option = compressionOption(new Uint8Array([1, 2, 3]));
    expect(option).toEqual({ threshold: COMPRESSION_THRESHOLD_BYTES, dictionary: Buffer.from([1, 2, 3]) });
  });
});
