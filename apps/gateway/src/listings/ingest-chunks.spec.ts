import type { IngestAdvertsReply } from '@immo/contracts';
import { chunksBySize, mergeReplies } from './ingest-chunks';

describe('ingestion chunks', () => {
  it('keeps order and stays under the byte budget, each chunk a JSON array of its items', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ i, text: 'é'.repeat(100) }));
    const chunks = chunksBySize(items, 1000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(items);
    // Measured in bytes, not characters: 'é' is two bytes in UTF-8.
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThanOrEqual(1000 + 2);
  });

  it('gives an item larger than the budget a chunk of its own', () => {
    expect(chunksBySize([{ a: 'x'.repeat(50) }, { b: 1 }], 10)).toEqual([[{ a: 'x'.repeat(50) }], [{ b: 1 }]]);
  });

  it('measures items JSON has no text for as null, as the array is encoded', () => {
    expect(chunksBySize([1, undefined, 'a'], 7)).toEqual([[1, undefined], ['a']]);
  });

  it('renumbers results across chunks', () => {
    const reply = (n: number, rejectedAt: number): IngestAdvertsReply => ({
      accepted: n - 1,
      rejected: 1,
      unchanged: 0,
      results: Array.from({ length: n }, (_, index) =>
        index === rejectedAt
          ? { index, status: 'rejected' as const, advertId: null, violations: [{ propertyPath: 'price', message: 'bad' }] }
          : { index, status: 'accepted' as const, advertId: `a${index}`, propertyId: null, events: [], warnings: [] },
      ),
    });
    const merged = mergeReplies([reply(3, 1), reply(2, 0)]);
    expect(merged).toMatchObject({ accepted: 3, rejected: 2 });
    expect(merged.results.map((r) => [r.index, r.status])).toEqual([
      [0, 'accepted'],
      [1, 'rejected'],
      [2, 'accepted'],
      [3, 'rejected'],
      [4, 'accepted'],
    ]);
  });
});
