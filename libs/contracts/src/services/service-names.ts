/** The four NATS services behind the gateway. Each subscribes in a queue group named after itself. */
export const SERVICE_NAMES = ['listings', 'geo', 'searches', 'notifier'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export function queueGroupOf(service: ServiceName): string {
  return `${service}-workers`;
}
