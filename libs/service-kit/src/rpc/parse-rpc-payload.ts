import { RpcException } from '@nestjs/microservices';
import type { z } from 'zod';
import { rpcErrors, validatePayload, type RpcErrorPayload } from '@immo/contracts';

/** Services re-validate what they receive against the contract: the gateway is not the only caller. */
export function parseRpcPayload<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = validatePayload(schema, data);
  if (!result.ok) throw new RpcException(rpcErrors.badRequest('The request payload is invalid.', result.violations));
  return result.value;
}

export function rpcError(payload: RpcErrorPayload): RpcException {
  return new RpcException(payload);
}
