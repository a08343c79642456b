import { NatsRecordSerializer } from '@nestjs/microservices/serializers';
import { NatsRecord, type OutgoingResponse } from '@nestjs/microservices';
import { headers } from 'nats';
import { isRpcErrorPayload, rpcErrors, type RpcErrorPayload } from '@immo/contracts';
import { JSON_RESPONSE_OFFSET_HEADER, JsonText, objectEndingWith } from './json-text';
import { plainRequestKind } from './plain-request-id';

const encoder = new TextEncoder();

/**
 * Answers a plain JSON request (see `PlainJsonRequestDeserializer`) in plain JSON too, since its
 * caller knows nothing of Nest: the handler's result, or on failure the `RpcErrorPayload`
 * `{status, title, detail, violations?}` that the gateway would have turned into its HTTP problem.
 * Replies to Nest's envelope keep Nest's own `{id, response | err, isDisposed}` format. A
 * `JsonText` response is spliced in as it is (see `JSON_RESPONSE_OFFSET_HEADER`).
 */
export class PlainJsonReplySerializer extends NatsRecordSerializer {
  override serialize(packet: OutgoingResponse): NatsRecord {
    const kind = plainRequestKind(packet.id);
    if (kind === undefined) return packet.response instanceof JsonText ? envelopeAround(packet, packet.response) : super.serialize(packet);
    if (kind === 'unreadable') return json(rpcErrors.badRequest('The request body is not valid JSON.'));
    if (packet.err !== undefined && packet.err !== null) return json(asProblem(packet.err));
    if (packet.response instanceof JsonText) return new NatsRecord(packet.response.bytes);
    // `null` rather than an empty body, so the caller can always parse the answer.
    return json(packet.response ?? null);
  }
}

/** Nest's envelope with the response last, its offset named in a header. */
function envelopeAround(packet: OutgoingResponse, response: JsonText): NatsRecord<Uint8Array> {
  const { response: _text, ...rest } = packet;
  const head = `${JSON.stringify(rest).slice(0, -1)}${Object.keys(rest).length > 0 ? ',' : ''}"response":`;
  const data = objectEndingWith(head, response.bytes);
  const replyHeaders = headers();
  replyHeaders.set(JSON_RESPONSE_OFFSET_HEADER, String(data.length - response.bytes.length - 1));
  return new NatsRecord(data, replyHeaders);
}

/**
 * Services throw `RpcException(RpcErrorPayload)` for errors they mean; anything else reaches here
 * as Nest's `{status: 'error', message}` (an unexpected failure, or no handler for the subject).
 */
function asProblem(err: unknown): RpcErrorPayload {
  if (isRpcErrorPayload(err)) return err;
  const message = typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
  return { status: 500, title: 'An error occurred', detail: `The service failed: ${message}` };
}

function json(value: unknown): NatsRecord<Uint8Array> {
  return new NatsRecord(encoder.encode(JSON.stringify(value)));
}
