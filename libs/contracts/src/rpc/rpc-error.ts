import { z } from 'zod';
import { violationSchema, type Violation } from './violation';

/**
 * The error a service answers a request with. It travels as the `err` of the NATS reply and the
 * gateway turns it into an HTTP problem with the same status.
 */
export interface RpcErrorPayload {
  status: number;
  title: string;
  detail: string;
  violations?: Violation[];
}

export const rpcErrorPayloadSchema = z.object({
  status: z.number().int().min(400).max(599),
  title: z.string(),
  detail: z.string(),
  violations: z.array(violationSchema).optional(),
});

export function isRpcErrorPayload(value: unknown): value is RpcErrorPayload {
  return rpcErrorPayloadSchema.safeParse(value).success;
}

export const rpcErrors = {
  badRequest(detail: string, violations: Violation[] = []): RpcErrorPayload {
    return { status: 400, title: 'An error occurred', detail, violations };
  },
  notFound(detail: string): RpcErrorPayload {
    return { status: 404, title: 'An error occurred', detail };
  },
  conflict(detail: string, violations?: Violation[]): RpcErrorPayload {
    return { status: 409, title: 'An error occurred', detail, ...(violations ? { violations } : {}) };
  },
  /** The service cannot take the request now; the client should retry later (503). */
  unavailable(detail: string): RpcErrorPayload {
    return { status: 503, title: 'Service Unavailable', detail };
  },
};
