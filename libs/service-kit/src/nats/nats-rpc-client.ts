import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ErrorCode, JSONCodec, type Msg, type NatsConnection, type NatsError, type RequestOptions } from 'nats';
import { isRpcErrorPayload, type RpcErrorPayload } from '@immo/contracts';
import { observeNatsRequest, requestDuration } from '../metrics/nats-request-metrics';
import { JSON_RESPONSE_OFFSET_HEADER } from './json-text';
import { requestIdHeaders } from './request-id-headers';

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

export interface RpcRequestOptions {
  timeoutMs?: number;
  /**
   * Sent in the `X-Request-Id` header, so the service's log lines for this request carry it.
   * Defaults to the id of the request being handled (see `runInRequestContext`), if any.
   */
  requestId?: string;
}

interface NestReply {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

const codec = JSONCodec<unknown>();
const encoder = new TextEncoder();

/**
 * Request/reply over core NATS speaking the NestJS microservice wire format
 * (`{pattern, data, id}` → `{id, response | err}`). Using `request` directly, rather than Nest's
 * client proxy, tells "no service is subscribed" (503) apart from "it did not answer in time" (504).
 * Each request is timed in `nats_request_duration_seconds` and carries the current request id.
 */
export class NatsRpcClient {
  constructor(private readonly connection: NatsConnection, private readonly defaultTimeoutMs: number) {
    requestDuration();
  }

  async request<TResponse>(subject: string, data: unknown, options: RpcRequestOptions = {}): Promise<TResponse> {
    return this.timed(subject, async () => {
      const message = await this.call(subject, data, options);
      return responseOf(subject, codec.decode(message.data) as NestReply) as TResponse;
    });
  }

  /**
   * The response as UTF-8 JSON, for answers passed on without being read (pages of documents): a
   * service answering with `JsonText` has it sliced out of the envelope, neither parsed nor decoded.
   */
  async requestJsonBytes(subject: string, data: unknown, options: RpcRequestOptions = {}): Promise<Uint8Array> {
    return this.timed(subject, async () => {
      const message = await this.call(subject, data, options);
      const offset = Number(message.headers?.get(JSON_RESPONSE_OFFSET_HEADER) ?? Number.NaN);
      if (Number.isInteger(offset) && offset > 0 && offset < message.data.length) return message.data.subarray(offset, message.data.length - 1);
      return encoder.encode(JSON.stringify(responseOf(subject, codec.decode(message.data) as NestReply) ?? null));
    });
  }

  /** Observes the request in `nats_request_duration_seconds` under how it ended. */
  private async timed<T>(subject: string, request: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await request();
      observeNatsRequest(subject, 'ok', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      observeNatsRequest(subject, error instanceof RpcCallError ? error.kind : 'error', (performance.now() - started) / 1000);
      throw error;
    }
  }

  private async call(subject: string, data: unknown, options: RpcRequestOptions): Promise<Msg> {
    const timeout = options.timeoutMs ?? this.defaultTimeoutMs;
    // Without an id given, the id of the request being handled, if any (see `requestIdHeaders`).
    const requestOptions: RequestOptions = { timeout, headers: requestIdHeaders(options.requestId) };
    try {
      return await this.connection.request(subject, envelope(subject, data), requestOptions);
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
  }
}

/** Nest's request envelope. */
function envelope(subject: string, data: unknown): Uint8Array {
  return codec.encode({ pattern: subject, data, id: randomUUID() });
}

/** The handler's response, or its error as an `RpcCallError`. */
function responseOf(subject: string, reply: NestReply): unknown {
  if (reply.err !== undefined && reply.err !== null) {
    if (isRpcErrorPayload(reply.err)) {
      throw new RpcCallError('remote', subject, reply.err.detail, reply.err);
    }
    const detail = typeof reply.err === 'object' && reply.err && 'message' in reply.err ? String(reply.err.message) : String(reply.err);
    throw new RpcCallError('remote', subject, detail);
  }
  return reply.response;
}
