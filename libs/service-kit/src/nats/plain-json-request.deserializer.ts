import { IncomingRequestDeserializer } from '@nestjs/microservices/deserializers';
import type { Deserializer, IncomingEvent, IncomingRequest } from '@nestjs/microservices';
import { plainRequestId } from './plain-request-id';

/**
 * The payload handed to a handler when the body was not JSON. A symbol, not `undefined`, so no
 * contract schema accepts it and handlers that default a missing payload (`payload ?? {}`) do not
 * act on it; the serializer answers such a request with a 400 whatever the handler returned.
 */
export const UNREADABLE_BODY: unique symbol = Symbol('unreadable NATS message body');

const decoder = new TextDecoder();

/**
 * Lets crawlers call a service with the plain `nats` client: a request (it has a reply subject)
 * whose body is not Nest's `{pattern, id, data}` envelope is a request for the handler of the
 * subject it was sent to, with the whole body as payload. Envelopes and messages without a reply
 * subject go through Nest's own rules unchanged.
 *
 * It never throws: Nest does not catch a deserializer failure, and the resulting unhandled
 * rejection would stop the whole service on one bad message.
 */
export class PlainJsonRequestDeserializer implements Deserializer<Uint8Array, IncomingRequest | IncomingEvent> {
  private readonly nest = new IncomingRequestDeserializer();

  deserialize(value: Uint8Array, options?: { channel?: string; replyTo?: string }): IncomingRequest | IncomingEvent {
    const body = decodeJson(value);
    const channel = options?.channel;
    const isRequest = Boolean(options?.replyTo);
    if (body === UNREADABLE_BODY) {
      const event = { pattern: channel, data: UNREADABLE_BODY };
      return isRequest ? { ...event, id: plainRequestId('unreadable') } : event;
    }
    if (!isRequest || isNestRequest(body)) return this.nest.deserialize(body, options);
    return { id: plainRequestId('plain'), pattern: channel, data: body };
  }
}

/** An empty body is a request without payload (`nats request <subject> ''`), not a malformed one. */
function decodeJson(value: Uint8Array): unknown {
  if (value.length === 0) return undefined;
  try {
    return JSON.parse(decoder.decode(value)) as unknown;
  } catch {
    return UNREADABLE_BODY;
  }
}

/** Nest's clients, and `NatsRpcClient`, always send both; a crawler's `{"snapshots": [...]}` has neither. */
function isNestRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'pattern' in body && 'id' in body;
}
