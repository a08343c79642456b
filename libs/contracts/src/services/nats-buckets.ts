/**
 * The JetStream key-value buckets of the services. Named here, beside the subjects, because each
 * service's NATS permissions are derived from these names (see `natsPermissions`).
 */
export const NATS_BUCKETS = {
  /** Gateways' heartbeats: how many share the rate limits. */
  gatewayPresence: 'gateway_presence',
  /** Per-API-key request counts, shared by the gateways. */
  gatewayRateLimits: 'gateway_rate_limits',
  /** Failed authentications per client address, shared by the gateways. */
  gatewayAuthFailures: 'gateway_auth_failures',
  /** Requests to public routes (no key) per client address, shared by the gateways. */
  gatewayPublicRequests: 'gateway_public_requests',
  /** The listings ingestion lease (one leader at a time). */
  listingsLeases: 'listings_leases',
  /** Per-account locks around search creation (the per-account search limit). */
  searchesAccountLocks: 'searches_account_locks',
} as const;

/** The event store's stream of a service on the embedded runtime, and its subjects. */
export const eventStreamOf = (service: string) => ({ name: `${service.toUpperCase()}_EVENTS`, subjectPrefix: `es.${service}` });
