import { headers, Match, type MsgHdrs } from 'nats';
import { acceptableRequestId, currentRequestId, REQUEST_ID_HEADER } from '../logging/request-context';

/** The request id a NATS message carries in its `X-Request-Id` header, when it is one to use (see `acceptableRequestId`). */
export function requestIdOfHeaders(messageHeaders: MsgHdrs | undefined): string | null {
  return messageHeaders ? acceptableRequestId(messageHeaders.get(REQUEST_ID_HEADER, Match.IgnoreCase)) : null;
}

/**
 * Headers carrying `requestId`, or none without one. Left out, it is the id of the request being
 * handled; `null` says there is none (a service passing ids explicitly).
 */
export function requestIdHeaders(requestId: string | null | undefined = currentRequestId()): MsgHdrs | undefined {
  if (requestId == null) return undefined;
  const carrying = headers();
  carrying.set(REQUEST_ID_HEADER, requestId);
  return carrying;
}
