import { randomUUID } from 'node:crypto';
import { ErrorCode, JSONCodec, type NatsConnection, type NatsError } from 'nats';
import { isRpcErrorPayload, type RpcErrorPayload } from '@immo/contracts';

export type RpcFailureKind = 'timeout' | 'unavailable' | 'remote' | 'too-large';

/** A request that did not produce a response: the kind decides the HTTP status the gateway answers. */
export class RpcCallError extends Error {
  override readonly name = 'RpcCallError';
  constructor(
    readonly kind: RpcFailureKind,
    readonly subject: string,
    message: string,
    readonly payload?: RpcErrorPayload,
  ) {
    super(message);
  }
}

interface NestReply {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

const codec = JSONCodec<unknown>();

/**
 * Request/reply over core NATS speaking the NestJS microservice wire format
 * (`{pattern, data, id}` → `{id, response | err}`). Using `request` directly, rather than Nest's
 * client proxy, tells "no service is subscribed" (503) apart from "it did not answer in time" (504).
 */
export class NatsRpcClient {
  constructor(private readonly connection: NatsConnection, private readonly defaultTimeoutMs: number) {}

  async request<TResponse>(subject: string, data: unknown, options: { timeoutMs?: number } = {}): Promise<TResponse> {
    const timeout = options.timeoutMs ?? this.defaultTimeoutMs;
    let reply: NestReply;
    try {
      const message = await this.connection.request(subject, codec.encode({ pattern: subject, data, id: randomUUID() }), { timeout });
      reply = codec.decode(message.data) as NestReply;
    } catch (error) {
      const code = (error as NatsError | undefined)?.code;
      if (code === ErrorCode.NoResponders) throw new RpcCallError('unavailable', subject, `No service answers ${subject}`);
      if (code === ErrorCode.MaxPayloadExceeded) throw new RpcCallError('too-large', subject, `The request to ${subject} exceeds the NATS message size limit`);
      if (code === ErrorCode.Timeout) throw new RpcCallError('timeout', subject, `${subject} did not answer within ${timeout} ms`);
      if (code === ErrorCode.ConnectionClosed || code === ErrorCode.Disconnect || code === ErrorCode.ConnectionRefused) {
        throw new RpcCallError('unavailable', subject, `NATS is not connected (${code})`);
      }
      throw error;
    }
    if (reply.err !== undefined && reply.err !== null) {
      if (isRpcErrorPayload(reply.err)) {
        throw new RpcCallError('remote', subject, reply.err.detail, reply.err);
      }
      const detail = typeof reply.err === 'object' && reply.err && 'message' in reply.err ? String(reply.err.message) : String(reply.err);
      throw new RpcCallError('remote', subject, detail);
    }
    return reply.response as TResponse;
  }
}
