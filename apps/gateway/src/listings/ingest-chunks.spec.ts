import type { IngestAdvertsReply } from '@immo/contracts';
import { chunkBySize, mergeReplies } from './ingest-chunks';

describe('ingestion chunks', () => {
  it('keeps order and stays under the byte budget', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ i, text: 'x'.repeat(100) }));
    const chunks = chunkBySize(items, 1000);
    expect(chunks.flat()).toEqual(items);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThanOrEqual(1000 + chunk.length);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('gives an item larger than the budget a chunk of its own', () => {
    const chunks = chunkBySize([{ a: 'x'.repeat(50) }, { b: 1 }], 10);
    expect(chunks).toHaveLength(2);
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
