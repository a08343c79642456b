import { z } from 'zod';
import type { ServiceName } from '../services/service-names';

/** `<service>.health.ping.v1`: answered by every replica; the gateway's readiness asks each service. */
export function pingSubject(service: ServiceName): string {
  return `${service}.health.ping.v1`;
}

/**
 * `<service>.health.replicas.v1`: answered by each replica (no queue group), with the reply a ping
 * gets; readiness lists a service's replicas from the answers that arrive.
 */
export function rollCallSubject(service: ServiceName): string {
  return `${service}.health.replicas.v1`;
}

export const pingRequestSchema = z.object({}).strict();
export type PingRequest = z.infer<typeof pingRequestSchema>;

export const storeReadinessSchema = z.object({ name: z.string(), ready: z.boolean() });

export const pingReplySchema = z.object({
  service: z.string(),
  instance: z.string(),
  ready: z.boolean(),
  stores: z.array(storeReadinessSchema),
});
export type PingReply = z.infer<typeof pingReplySchema>;
