import { Injectable } from '@nestjs/common';
import { NatsRpcClient, RpcCallError } from '@immo/service-kit';
import { ProblemException } from '../http/problem';

/**
 * Gateway → service requests. Every call has a timeout; failures become HTTP answers:
 * no responder 503, timeout 504, over the NATS message limit 413, a service's own error keeps its status (400 with violations,
 * 404, 409), anything else 502.
 */
@Injectable()
export class ServiceClient {
  constructor(private readonly rpc: NatsRpcClient) {}

  async request<T>(subject: string, payload: unknown, timeoutMs?: number): Promise<T> {
    try {
      return await this.rpc.request<T>(subject, payload, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (error) {
      throw toHttpProblem(error);
    }
  }

  /** The response as UTF-8 JSON, not parsed (see `NatsRpcClient.requestJsonBytes`). */
  async requestJsonBytes(subject: string, payload: unknown, timeoutMs?: number): Promise<Uint8Array> {
    try {
      return await this.rpc.requestJsonBytes(subject, payload, timeoutMs === undefined ? {} : { timeoutMs });
    } catch (error) {
      throw toHttpProblem(error);
    }
  }
}

export function toHttpProblem(error: unknown): unknown {
  if (!(error instanceof RpcCallError)) return error;
  const service = error.subject.split('.')[0] ?? error.subject;
  switch (error.kind) {
    case 'unavailable':
      return new ProblemException(503, `The ${service} service is unavailable.`);
    case 'too-large':
      return new ProblemException(413, 'The request is too large to forward; send fewer or smaller items.');
    case 'timeout':
      return new ProblemException(504, `The ${service} service did not answer in time.`);
    case 'remote':
      if (error.payload) return new ProblemException(error.payload.status, error.payload.detail, error.payload.violations);
      return new ProblemException(502, `The ${service} service failed: ${error.message}`);
  }
}
