import { performance } from 'node:perf_hooks';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { RpcException, type NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from 'nats';
import { throwError, type Observable } from 'rxjs';
import { catchError, tap } from 'rxjs/operators';
import { isRpcErrorPayload } from '@immo/contracts';
import { processLogger } from './logger';
import { requestIdOfHeaders } from '../nats/request-id-headers';
import { requestContextOf, runInRequestContext, type RequestIdPassing } from './request-context';

/** What Nest answers an unexpected failure with; thrown as such so that its filter does not log the failure a second time, without the id. */
const INTERNAL_ERROR = { status: 'error', message: 'Internal server error' };

/**
 * Binds each NATS request a service handles to the request id its caller sent in the
 * `X-Request-Id` header (the gateway sends the id of the HTTP request behind it): the handler's
 * log lines carry it, and so do the NATS requests it makes in turn. At `debug` level, one line per
 * request names the subject, the outcome and the time taken.
 *
 * With `explicit` passing (see `RequestIdPassing`) nothing is bound: the handlers pass the id on
 * themselves, and an unexpected failure is logged here with the id.
 */
@Injectable()
export class NatsRequestContextInterceptor implements NestInterceptor {
  constructor(private readonly passing: RequestIdPassing = 'async-context') {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const nats = context.switchToRpc().getContext<NatsContext>();
    const headers = nats.getHeaders() as MsgHdrs | undefined;
    const requestId = requestIdOfHeaders(headers);
    const handled = this.passing === 'explicit' ? next.handle().pipe(catchError((error: unknown) => throwError(() => loggedFailure(error, nats, requestId)))) : bound(next, requestId);
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

function bound(next: CallHandler, requestId: string | null): Observable<unknown> {
  // `handle()` binds the handler to the async context it is called in.
  return requestId === null ? next.handle() : runInRequestContext(requestContextOf(requestId), () => next.handle());
}

/** An expected refusal (an RpcException) as it is; anything else logged with the request id and answered as Nest would. */
function loggedFailure(error: unknown, nats: NatsContext, requestId: string | null): unknown {
  if (error instanceof RpcException) return error;
  processLogger().error({ context: 'NATS', subject: nats.getSubject(), err: error, ...(requestId === null ? {} : { requestId }) }, `${nats.getSubject()} failed: ${error instanceof Error ? error.message : String(error)}`);
  return new RpcException(INTERNAL_ERROR);
}

function statusOf(error: unknown): number {
  const payload = error instanceof RpcException ? error.getError() : null;
  return isRpcErrorPayload(payload) ? payload.status : 500;
}
