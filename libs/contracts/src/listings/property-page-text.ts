import type { ListPropertiesReply } from './listings-messages';

/**
 * `ListPropertiesReply` as UTF-8 JSON, the way listings answers a page of documents: the count
 * first, then the documents' own JSON, spliced from bytes it keeps cached. A reader learns the
 * count from the head and takes the documents' bytes as they are, so a page of 10–30 documents
 * (50–250 KB) crosses the gateway without being decoded, parsed and encoded again.
 */
const HEAD = /^\{"totalItems":(\d+),"items":/;
/** Longer than any head: `{"totalItems":` + 16 digits + `,"items":`. */
const HEAD_BYTES = 48;
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

export function propertyPageBytes(totalItems: number, documents: readonly Uint8Array[]): Uint8Array {
  const head = encoder.encode(`{"totalItems":${totalItems},"items":[`);
  const length = head.length + documents.reduce((sum, document) => sum + document.length, 0) + Math.max(0, documents.length - 1) + 2;
  const page = new Uint8Array(length);
  page.set(head, 0);
  let at = head.length;
  documents.forEach((document, i) => {
    if (i > 0) page[at++] = COMMA;
    page.set(document, at);
    at += document.length;
  });
  page[at++] = CLOSE_BRACKET;
  page[at] = CLOSE_BRACE;
  return page;
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
