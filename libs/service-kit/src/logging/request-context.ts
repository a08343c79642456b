import { AsyncLocalStorage } from 'node:async_hooks';

/** The header carrying a request's id: on the gateway's HTTP requests and responses, and on NATS requests. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Longest request id accepted from a caller; anything else is replaced by a generated one. */
export const MAX_REQUEST_ID_LENGTH = 128;

const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * A caller's request id, or null when it cannot be used as one: ids end up in log lines and NATS
 * headers, so only printable ASCII of at most 128 characters is taken.
 */
export function acceptableRequestId(value: unknown): string | null {
  const raw = Array.isArray(value) ? (value[0] as unknown) : value;
  if (typeof raw !== 'string') return null;
  const id = raw.trim();
  return id.length > 0 && id.length <= MAX_REQUEST_ID_LENGTH && PRINTABLE.test(id) ? id : null;
}

/** What work done for one request knows of it; `logFields` is built once and merged into each log line. */
export interface RequestContext {
  readonly requestId: string;
  readonly logFields: { readonly requestId: string };
}

const storage = new AsyncLocalStorage<RequestContext>();

export function requestContextOf(requestId: string): RequestContext {
  return { requestId, logFields: { requestId } };
}

/**
 * Runs `work` for one request: log lines written and NATS requests sent from it (and from what it
 * awaits or schedules) carry the request's id.
 */
export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * How a service's NATS handlers learn their request's id (see `runService`):
 * - `async-context`: each handler runs bound to it (`runInRequestContext`); its log lines and the
 *   NATS requests it makes pick it up by themselves.
 * - `explicit`: nothing is bound; handlers read it from their message (`requestIdOfHeaders`) and
 *   hand it to what they log (`withRequestId`) and call. Binding even once turns on Node's promise
 *   hook for the whole process for good, a cost on every promise any of its work creates (a tenth
 *   of the listings service's event loop while recrawling, projections included).
 */
export type RequestIdPassing = 'async-context' | 'explicit';

/** A log message for Nest's `Logger` that carries `requestId` when there is one, for handlers passing ids explicitly. */
export function withRequestId(message: string, requestId: string | null | undefined): string | { msg: string; requestId: string } {
  return requestId == null ? message : { msg: message, requestId };
}
