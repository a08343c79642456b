import { performance } from 'node:perf_hooks';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { RpcException, type NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from 'nats';
import type { Observable } from 'rxjs';
import { tap } from 'rxjs/operators';
import { isRpcErrorPayload } from '@immo/contracts';
import { processLogger } from './logger';
import { requestIdOfHeaders } from '../nats/request-id-headers';
import { requestContextOf, runInRequestContext } from './request-context';

/**
 * Binds each NATS request a service handles to the request id its caller sent in the
 * `X-Request-Id` header (the gateway sends the id of the HTTP request behind it): the handler's
 * log lines carry it, and so do the NATS requests it makes in turn. At `debug` level, one line per
 * request names the subject, the outcome and the time taken.
 */
@Injectable()
export class NatsRequestContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const nats = context.switchToRpc().getContext<NatsContext>();
    const headers = nats.getHeaders() as MsgHdrs | undefined;
    const requestId = requestIdOfHeaders(headers);
    // `handle()` binds the handler to the async context it is called in.
    const handled = requestId === null ? next.handle() : runInRequestContext(requestContextOf(requestId), () => next.handle());
    const logger = processLogger();
    if (!logger.isLevelEnabled('debug')) return handled;
    const started = performance.now();
    const line = (outcome: string, status: number) => {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const subject = nats.getSubject();
      logger.debug(
        { context: 'NATS', subject, outcome, status, durationMs, ...(requestId === null ? {} : { requestId }) },
        `${subject} ${outcome} ${durationMs} ms`,
      );
    };
    return handled.pipe(tap({ complete: () => line('ok', 200), error: (error: unknown) => line('error', statusOf(error)) }));
  }
}

function statusOf(error: unknown): number {
  const payload = error instanceof RpcException ? error.getError() : null;
  return isRpcErrorPayload(payload) ? payload.status : 500;
}
