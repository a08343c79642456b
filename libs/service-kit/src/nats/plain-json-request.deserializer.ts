import { IncomingRequestDeserializer } from '@nestjs/microservices/deserializers';
import type { Deserializer, IncomingEvent, IncomingRequest } from '@nestjs/microservices';
import { eventLoopSlice } from '../scheduling/event-loop-slice';
import { plainRequestId } from './plain-request-id';
import { parseJsonInSlices } from './sliced-json-parse';

/**
 * The payload handed to a handler when the body was not JSON. A symbol, not `undefined`, so no
 * contract schema accepts it and handlers that default a missing payload (`payload ?? {}`) do not
 * act on it; the serializer answers such a request with a 400 whatever the handler returned.
 */
export const UNREADABLE_BODY: unique symbol = Symbol('unreadable NATS message body');

const decoder = new TextDecoder();

/** Bodies from this size up are parsed a piece at a time (see `parseJsonInSlices`): a batch of a thousand snapshots is 1.5 MB. */
const SLICED_PARSE_BYTES = 128 * 1024;

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
  /**
   * The last message read a piece at a time, until read (and those queued behind it): a message
   * arriving meanwhile waits its turn, so handlers still start in the order messages arrived (a
   * crawler's batches sent one after another are decided in that order).
   */
  private reading: Promise<unknown> | null = null;

  deserialize(value: Uint8Array, options?: { channel?: string; replyTo?: string }): IncomingRequest | IncomingEvent | Promise<IncomingRequest | IncomingEvent> {
    const large = value.length >= SLICED_PARSE_BYTES;
    if (!large && this.reading === null) return this.requestOf(decodeJson(value), options);
    // Nest awaits what a deserializer returns. Neither step rejects.
    const read = (this.reading ?? Promise.resolve()).then(() => (large ? decodeJsonInSlices(value) : decodeJson(value)));
    this.reading = read;
    void read.then(() => {
      if (this.reading === read) this.reading = null;
    });
    return read.then((body) => this.requestOf(body, options));
  }

  private requestOf(body: unknown, options?: { channel?: string; replyTo?: string }): IncomingRequest | IncomingEvent {
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

/** `decodeJson` letting the event loop turn while a large body is parsed; never rejects. */
async function decodeJsonInSlices(value: Uint8Array): Promise<unknown> {
  try {
    return await parseJsonInSlices(decoder.decode(value), () => eventLoopSlice.yieldIfDue());
  } catch {
    return UNREADABLE_BODY;
  }
}

/** Nest's clients, and `NatsRpcClient`, always send both; a crawler's `{"snapshots": [...]}` has neither. */
function isNestRequest(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'pattern' in body && 'id' in body;
}
