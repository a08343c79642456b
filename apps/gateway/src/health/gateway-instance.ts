import { hostname } from 'node:os';

/** This gateway's name in readiness and in the shared rate-limit buckets. */
export const GATEWAY_INSTANCE = Symbol('GATEWAY_INSTANCE');

/** Its `REPLICA_NAME` (a pod's name, `gateway-2` on one machine) or `gateway`, then host and pid. */
export function gatewayInstance(replicaName: string | undefined): string {
  return `${replicaName ?? 'gateway'}@${hostname()}:${process.pid}`;
}
