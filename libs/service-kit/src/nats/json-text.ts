/**
 * A handler's result that is already JSON text (documents read as text, or spliced from cached
 * pieces). The reply serializer sends it as it is, and `NatsRpcClient.requestJsonBytes` hands it on
 * as bytes: a page of property documents is never parsed and encoded again on its way to HTTP.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * Header of a Nest-envelope reply whose `response` is JSON text: the byte offset at which the
 * response starts. The envelope stays valid JSON for any Nest client; ours slices the response
 * out without parsing it.
 */
export const JSON_RESPONSE_OFFSET_HEADER = 'Immo-Json-Response-Offset';
