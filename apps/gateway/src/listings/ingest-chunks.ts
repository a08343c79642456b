import type { IngestAdvertsReply } from '@immo/contracts';

/**
 * NATS messages are capped (1 MiB by default), and a batch of a thousand snapshots is larger.
 * The gateway sends a batch as consecutive chunks under a byte budget, in order, so later
 * snapshots of one advert still follow earlier ones.
 */
export const CHUNK_BUDGET_BYTES = 512 * 1024;

/**
 * The batch as JSON arrays of consecutive items, each under the byte budget (an item larger than
 * the budget alone). Each item is encoded once: its text both measures it and goes into its chunk,
 * which is sent as it is (see `JsonText`), rather than measured, then encoded again whole.
 */
export function jsonChunksBySize(items: readonly unknown[], budgetBytes = CHUNK_BUDGET_BYTES): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const item of items) {
    const text = JSON.stringify(item) ?? 'null';
    const itemSize = Buffer.byteLength(text) + 1;
    if (current.length > 0 && size + itemSize > budgetBytes) {
      chunks.push(`[${current.join(',')}]`);
      current = [];
      size = 0;
    }
    current.push(text);
    size += itemSize;
  }
  if (current.length > 0) chunks.push(`[${current.join(',')}]`);
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
