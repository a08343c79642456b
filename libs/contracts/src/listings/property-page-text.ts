import type { ListPropertiesReply } from './listings-messages';

/**
 * `ListPropertiesReply` as JSON text, the way listings answers a page of documents: the count
 * first, then the documents' own JSON text. A reader learns the count from the head and takes the
 * documents' bytes as they are, so a page of 10–30 documents (50–250 KB) crosses the gateway
 * without being decoded, parsed and encoded again.
 */
const HEAD = /^\{"totalItems":(\d+),"items":/;
/** Longer than any head: `{"totalItems":` + 16 digits + `,"items":`. */
const HEAD_BYTES = 48;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function propertyPageText(totalItems: number, documentTexts: readonly string[]): string {
  return `{"totalItems":${totalItems},"items":[${documentTexts.join(',')}]}`;
}

/** The count and the documents' JSON array (UTF-8) of a page, whichever way it was written. */
export function readPropertyPage(json: Uint8Array): { totalItems: number; items: Uint8Array } {
  const head = HEAD.exec(decoder.decode(json.subarray(0, HEAD_BYTES)));
  // The head is ASCII: its length in characters is its length in bytes.
  if (head) return { totalItems: Number(head[1]), items: json.subarray(head[0].length, json.length - 1) };
  // Written by something else (key order, spacing): read it the slow way.
  const reply = JSON.parse(decoder.decode(json)) as ListPropertiesReply;
  return { totalItems: reply.totalItems, items: encoder.encode(JSON.stringify(reply.items)) };
}
