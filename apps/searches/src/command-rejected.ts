import type { RpcErrorPayload } from '@immo/contracts';

/** A command or query refused for a reason the caller can act on; the controller answers it as is. */
export class CommandRejected extends Error {
  constructor(readonly payload: RpcErrorPayload) {
    super(payload.detail);
  }
}
