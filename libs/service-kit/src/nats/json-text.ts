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
