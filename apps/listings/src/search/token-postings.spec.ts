import fc from 'fast-check';
import { Bitset } from './bitset';
import { TokenPostings } from './token-postings';

describe('TokenPostings', () => {
  it('turns a bitset back into a list at a trimming compaction once the token has become rare', () => {
    const postings = new TokenPostings();
    for (let doc = 0; doc < 2000; doc++) postings.add(0, doc);
    expect(postings.denseTokens).toBe(1);
    for (let doc = 0; doc < 2000; doc++) if (doc % 100 !== 0) postings.remove(0, doc);
    postings.compact(false);
    expect(postings.denseTokens).toBe(1);
    postings.compact(true);
    expect(postings.denseTokens).toBe(0);
    const all = new Bitset();
    postings.orInto(0, all);
    expect(all.toArray()).toEqual(Array.from({ length: 20 }, (_, i) => i * 100));
  });

  it('answers like sets of documents, before and after a frequent token turns into a bitset', () => {
    const operation = fc.record({ add: fc.boolean(), token: fc.nat(3), doc: fc.nat(1500) });
    fc.assert(
      fc.property(fc.array(operation, { minLength: 500, maxLength: 2500 }), (operations) => {
        const postings = new TokenPostings();
        const model = Array.from({ length: 4 }, () => new Set<number>());
        // Token 0 is in every document: it must turn dense.
        for (let doc = 0; doc < 1000; doc++) {
          postings.add(0, doc);
          model[0]!.add(doc);
        }
        for (const { add, token, doc } of operations) {
          if (add) {
            if (!model[token]!.has(doc)) postings.add(token, doc);
            model[token]!.add(doc);
          } else if (model[token]!.has(doc)) {
            postings.remove(token, doc);
            model[token]!.delete(doc);
          }
        }
        expect(postings.denseTokens).toBeGreaterThanOrEqual(1);
        const within = Bitset.of([0, 5, 999, 1200, 1500]);
        model.forEach((docs, token) => {
          const all = new Bitset();
          postings.orInto(token, all);
          expect(all.toArray()).toEqual([...docs].sort((a, b) => a - b));
          expect(postings.keepIn(token, within).toArray()).toEqual(within.toArray().filter((doc) => docs.has(doc)));
          expect(postings.has(token, 999)).toBe(docs.has(999));
        });
      }),
      { numRuns: 30 },
    );
  });
});
