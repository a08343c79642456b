import type { IngestAdvertsReply } from '@immo/contracts';

/**
 * The gateway sends a batch as consecutive chunks under a byte budget, in order, so later
 * snapshots of one advert still follow earlier ones. NATS caps a message (1 MiB by default), and a
 * batch of a thousand snapshots is 1.5 MB; listings parses a message in one piece on its event
 * loop, and a parse of a 1.5 MB batch with the collections its objects set off held it 90 to
 * 140 ms at 200,000 properties. About a hundred snapshots a chunk keeps each parse to a few ms.
 */
export const CHUNK_BUDGET_BYTES = 120 * 1024;

/**
 * The batch as runs of consecutive items whose JSON stays under the byte budget (an item larger
 * than the budget alone).
 */
export function chunksBySize<T>(items: readonly T[], budgetBytes = CHUNK_BUDGET_BYTES): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemSize = Buffer.byteLength(JSON.stringify(item) ?? 'null') + 1;
    if (current.length > 0 && size + itemSize > budgetBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemSize;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Joins the replies of consecutive chunks, renumbering each result to its index in the batch. */
export function mergeReplies(replies: IngestAdvertsReply[]): IngestAdvertsReply {
  const merged: IngestAdvertsReply = { accepted: 0, rejected: 0, unchanged: 0, results: [] };
  let offset = 0;
  for (const reply of replies) {
    merged.accepted += reply.accepted;
    merged.rejected += reply.rejected;
    merged.unchanged += reply.unchanged;
    for (const result of reply.results) merged.results.push({ ...result, index: result.index + offset });
    offset += reply.results.length;
  }
  return merged;
}
