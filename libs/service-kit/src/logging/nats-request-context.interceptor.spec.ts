import { AsyncResource } from 'node:async_hooks';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { NatsContext, RpcException } from '@nestjs/microservices';
import { headers as natsHeaders } from 'nats';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { rpcErrors } from '@immo/contracts';
import { configureLogging } from './logger';
import { NatsRequestContextInterceptor } from './nats-request-context.interceptor';
import { currentRequestId, REQUEST_ID_HEADER, withRequestId } from './request-context';

const SUBJECT = 'test.explicit.v1';
const lines: Record<string, unknown>[] = [];

beforeAll(() => {
  configureLogging('listings', { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, { destination: { write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
});

beforeEach(() => {
  lines.length = 0;
});

function rpcContext(requestId?: string): ExecutionContext {
  const carried = natsHeaders();
  if (requestId !== undefined) carried.set(REQUEST_ID_HEADER, requestId);
  const nats = new NatsContext([SUBJECT, carried]);
  return { getType: () => 'rpc', switchToRpc: () => ({ getContext: () => nats }) } as unknown as ExecutionContext;
}

/** A handler as Nest's `handle()` gives it: run on subscription, bound to the async context `handle()` was called in. */
function handler(work: () => Promise<unknown>): CallHandler {
  return { handle: (): Observable<unknown> => defer(AsyncResource.bind(work)) };
}

describe('NatsRequestContextInterceptor', () => {
  it('binds the handler to the request id by default', async () => {
    const interceptor = new NatsRequestContextInterceptor();

    const seen = await lastValueFrom(interceptor.intercept(rpcContext('crawl-0001'), handler(() => Promise.resolve(currentRequestId()))));

    expect(seen).toBe('crawl-0001');
  });

  describe('with explicit request ids', () => {
    const interceptor = new NatsRequestContextInterceptor('explicit');

    it('binds nothing (the handler reads the id from its message), and its debug line still names the id', async () => {
      const seen = await lastValueFrom(interceptor.intercept(rpcContext('crawl-0002'), handler(() => Promise.resolve(currentRequestId() ?? 'none'))));

      expect(seen).toBe('none');
      expect(lines.at(-1)).toMatchObject({ context: 'NATS', subject: SUBJECT, outcome: 'ok', requestId: 'crawl-0002' });
    });

    it('logs an unexpected failure once, with the id, and answers it as Nest does', async () => {
      const answer = lastValueFrom(interceptor.intercept(rpcContext('crawl-0003'), handler(() => Promise.reject(new Error('store closed')))));

      const failure = await answer.catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(RpcException);
      expect((failure as RpcException).getError()).toEqual({ status: 'error', message: 'Internal server error' });
      const errors = lines.filter((line) => line['level'] === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ context: 'NATS', subject: SUBJECT, requestId: 'crawl-0003', msg: `${SUBJECT} failed: store closed` });
      expect(lines.at(-1)).toMatchObject({ level: 'debug', outcome: 'error', status: 500, requestId: 'crawl-0003' });
    });

    it('passes a refusal (an RpcException) on as it is, without an error line', async () => {
      const refusal = new RpcException(rpcErrors.unavailable('catching up; retry later'));

      const failure = await lastValueFrom(interceptor.intercept(rpcContext('crawl-0004'), handler(() => Promise.reject(refusal)))).catch((error: unknown) => error);

      expect(failure).toBe(refusal);
      expect(lines.filter((line) => line['level'] === 'error')).toEqual([]);
      expect(lines.at(-1)).toMatchObject({ outcome: 'error', status: 503, requestId: 'crawl-0004' });
    });

    it('logs an unexpected failure without an id when the caller sent none', async () => {
      await lastValueFrom(interceptor.intercept(rpcContext(), handler(() => Promise.reject(new Error('boom'))))).catch(() => undefined);

      const errors = lines.filter((line) => line['level'] === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).not.toHaveProperty('requestId');
    });
  });
});

describe('withRequestId', () => {
  it('is the message alone without an id, and the message with the id otherwise', () => {
    expect(withRequestId('batch refused', null)).toBe('batch refused');
    expect(withRequestId('batch refused', undefined)).toBe('batch refused');
    expect(withRequestId('batch refused', 'crawl-0005')).toEqual({ msg: 'batch refused', requestId: 'crawl-0005' });
  });
});
