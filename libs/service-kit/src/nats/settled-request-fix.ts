import { RequestOne } from 'nats/lib/nats-base-client/request';

/**
 * The `nats` client (2.29) answers each request by resolving its promise and then cancelling the
 * request, and its `cancel` builds a `NatsError` ("cancelled") to reject the promise that was just
 * resolved: a stack capture and its garbage per request and per JetStream publish, thrown away.
 * Measured on a local nats-server, about 9 µs of CPU per publish out of 27 (an append, each
 * integration event published, each RPC). Settling a request here stops its timer and removes it
 * from the inbox mux as `cancel` does, without the error. Timeouts, no-responders and closed
 * connections are unaffected: they reject through the same `resolver` with their own error.
 */
interface RequestOneInternals {
  timer?: { cancel(): void };
  deferred: { resolve(msg: unknown): void; reject(error: unknown): void };
  mux: { cancel(request: unknown): void };
  ctx?: Error;
}

let installed = false;

export function skipErrorOnSettledRequests(): void {
  if (installed) return;
  installed = true;
  RequestOne.prototype.resolver = function resolver(this: RequestOneInternals, error: Error | null, msg: unknown): void {
    this.timer?.cancel();
    if (error) {
      if (this.ctx) error.stack += `\n\n${this.ctx.stack}`;
      this.deferred.reject(error);
    } else {
      this.deferred.resolve(msg);
    }
    this.mux.cancel(this);
  };
}
