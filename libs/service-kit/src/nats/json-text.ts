const encoder = new TextEncoder();

/**
 * A handler's result that is already JSON, as text or as its UTF-8 bytes (documents spliced from
 * cached pieces). The reply serializer sends its bytes as they are, and
 * `NatsRpcClient.requestJsonBytes` hands them on: a page of property documents is never parsed
 * and encoded again on its way to HTTP.
 */
export class JsonText {
  /** The UTF-8 bytes: as given, or the text encoded once. */
  readonly bytes: Uint8Array;

  constructor(json: string | Uint8Array) {
    this.bytes = typeof json === 'string' ? encoder.encode(json) : json;
  }
}

/**
 * Header of a Nest-envelope reply whose `response` is JSON text: the byte offset at which the
 * response starts. The envelope stays valid JSON for any Nest client; ours slices the response
 * out without parsing it.
 */
export const JSON_RESPONSE_OFFSET_HEADER = 'Immo-Json-Response-Offset';

/**
 * A JSON object whose last member's value is JSON text already: `head` is the object up to that
 * value (`{"a":1,"b":`), `value` its UTF-8 bytes; the closing brace is added.
 */
export function objectEndingWith(head: string, value: Uint8Array): Uint8Array {
  const start = encoder.encode(head);
  const object = new Uint8Array(start.length + value.length + 1);
  object.set(start, 0);
  object.set(value, start.length);
  object[object.length - 1] = 0x7d; // }
  return object;
}
