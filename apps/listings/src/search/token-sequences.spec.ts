import fc from 'fast-check';
import { Bitset } from './bitset';
import { TokenSequences } from './token-sequences';

const textsOf = (sequences: TokenSequences, doc: number): number[][] => {
  const texts: number[][] = [];
  sequences.some(doc, (ids, length) => {
    texts.push(Array.from(ids.subarray(0, length)));
    return false;
  });
  return texts;
};

const write = (sequences: TokenSequences, doc: number, texts: number[][]): void => sequences.write(doc, texts.flat(), texts.map((text) => text.length));

/** The reference: does a text hold `whole` in order, then (if given) one of `next`? */
const holds = (texts: number[][], whole: number[], next: number[] | null): boolean =>
  texts.some((text) =>
    text.some((_, start) => whole.every((id, i) => text[start + i] === id) && (next === null || (start + whole.length < text.length && next.includes(text[start + whole.length]!)))),
  );

describe('TokenSequences', () => {
  const id = fc.oneof(fc.nat(200), fc.nat(100_000), fc.constant(2 ** 31));
  const texts = fc.array(fc.array(id, { minLength: 1, maxLength: 300 }), { maxLength: 4 });

  it('gives back each text of each document, ids of any size included', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(10), texts), { maxLength: 30 }), (writes) => {
        const sequences = new TokenSequences();
        const model = new Map<number, number[][]>();
        for (const [doc, docTexts] of writes) {
          write(sequences, doc, docTexts);
          model.set(doc, docTexts);
        }
        for (let doc = 0; doc <= 10; doc++) expect(textsOf(sequences, doc)).toEqual(model.get(doc) ?? []);
      }),
      { numRuns: 100 },
    );
  });

  it('stops at the first text the visitor accepts, and forgets a released document', () => {
    const sequences = new TokenSequences();
    write(sequences, 0, [[1, 2], [3, 1], [4]]);
    const seen: number[] = [];
    expect(sequences.some(0, (ids, length) => (seen.push(length), ids[0] === 3))).toBe(true);
    expect(seen).toEqual([2, 2]);
    sequences.release(0);
    expect(textsOf(sequences, 0)).toEqual([]);
  });

  it('finds a run of ids only at number boundaries and within one text', () => {
    const sequences = new TokenSequences();
    // 200 encodes as [0xc9, 0x01]: its second byte must not pass for id 0 (encoded 0x01).
    write(sequences, 0, [[200, 5], [7]]);
    expect(sequences.containsPhrase(0, TokenSequences.patternOf([0]), null)).toBe(false);
    expect(sequences.containsPhrase(0, TokenSequences.patternOf([200, 5]), null)).toBe(true);
    expect(sequences.containsPhrase(0, TokenSequences.patternOf([5]), Bitset.of([7]))).toBe(false);
    expect(sequences.containsPhrase(0, TokenSequences.patternOf([200]), Bitset.of([5]))).toBe(true);
  });

  it('finds phrases as a scan of the decoded texts does', () => {
    const small = fc.nat(300);
    const docTexts = fc.array(fc.array(fc.oneof(small, fc.constantFrom(127, 128, 16_383, 16_384)), { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 3 });
    // Half the runs are cut out of a text, so that phrases are found as often as missed.
    const withRun = docTexts.chain((texts) =>
      fc.tuple(
        fc.constant(texts),
        fc.oneof(
          fc.array(small, { minLength: 1, maxLength: 3 }),
          fc.tuple(fc.nat(texts.length - 1), fc.nat(29), fc.integer({ min: 1, max: 3 })).map(([t, start, length]) => {
            const text = texts[t]!;
            const from = Math.min(start, text.length - 1);
            return text.slice(from, from + length);
          }),
        ),
      ),
    );
    fc.assert(
      fc.property(withRun, fc.option(fc.array(small, { minLength: 1, maxLength: 5 }), { nil: null }), ([texts, run], next) => {
        const sequences = new TokenSequences();
        write(sequences, 3, texts);
        const nextIds = next === null ? null : Bitset.of(next);
        expect(sequences.containsPhrase(3, TokenSequences.patternOf(run), nextIds)).toBe(holds(texts, run, next));
        expect(sequences.containsPhrase(3, TokenSequences.patternOf(run.slice(0, -1).length > 0 ? run.slice(0, -1) : run), null)).toBe(
          holds(texts, run.slice(0, -1).length > 0 ? run.slice(0, -1) : run, null),
        );
      }),
      { numRuns: 500 },
    );
  });
});
