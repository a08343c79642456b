import { mailConfigShape } from './mail-config';
import { z } from 'zod';
import { secretsKey } from './secrets-key';

const natsUrl = z
  .string()
  .default('nats://127.0.0.1:4222')
  .refine((value) => value.split(',').every((url) => /^(nats|tls|ws|wss):\/\/[^\s]+$/.test(url.trim())), {
    message: 'must be one or more nats:// URLs separated by commas',
  });

const logLevel = z.enum(['error', 'warn', 'log', 'debug', 'verbose']).default('log');
/** Unset: pretty on a terminal, JSON otherwise. */
const logFormat = z.enum(['json', 'pretty']).optional();

/**
 * How much nicer than the event loop a process's helper threads run (V8's collector threads,
 * libuv's pool); 0 leaves them as they are. See `HelperThreadPriority`.
 */
const helperThreadNice = z.coerce.number().int().min(0).max(19).default(5);

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/**
 * Copies of each JetStream stream and KV bucket the services create: 1 on one nats-server, 3 on a
 * three-node cluster (compose, Kubernetes), so that losing a node loses no event and stops nothing.
 */
const natsReplicas = z.coerce.number().int().min(1).max(5).default(1);

/**
 * How a process authenticates to NATS: the user and password of its principal (see
 * `natsPermissions`), and TLS when the brokers require it. Unset user: an anonymous connection,
 * which only a nats-server without authorization accepts (a test's own broker).
 */
const natsCredentialsShape = {
  NATS_USER: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be a NATS user name (lower-case letters, digits, - or _)').optional(),
  NATS_PASSWORD: z.string().min(16, 'must be at least 16 characters').optional(),
  /** CA bundle to verify the brokers' certificates (tls:// URLs or a broker requiring TLS). */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /** Client certificate and key, for brokers that verify clients (mutual TLS). */
  NATS_TLS_CERT_FILE: z.string().min(1).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).optional(),
};

/** A user needs its password, and a client certificate its key: one without the other is a mistake. */
export function requireNatsCredentialPairs(
  config: { NATS_USER?: string | undefined; NATS_PASSWORD?: string | undefined; NATS_TLS_CERT_FILE?: string | undefined; NATS_TLS_KEY_FILE?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if ((config.NATS_USER === undefined) !== (config.NATS_PASSWORD === undefined)) {
    ctx.addIssue({ code: 'custom', path: [config.NATS_USER === undefined ? 'NATS_USER' : 'NATS_PASSWORD'], message: 'NATS_USER and NATS_PASSWORD go together' });
  }
  if ((config.NATS_TLS_CERT_FILE === undefined) !== (config.NATS_TLS_KEY_FILE === undefined)) {
    ctx.addIssue({ code: 'custom', path: [config.NATS_TLS_CERT_FILE === undefined ? 'NATS_TLS_CERT_FILE' : 'NATS_TLS_KEY_FILE'], message: 'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together' });
  }
}

/** This replica's name in readiness and logs (a pod's name; `listings-2` on one machine). */
const replicaName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be letters, digits, dots, dashes or underscores').optional();

/** Variables every service reads. Production sets the store kinds and their URLs. */
export const serviceConfigShape = {
  NATS_URL: natsUrl,
  NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  NATS_REPLICAS: natsReplicas,
  ...natsCredentialsShape,
  DATA_DIR: z.string().min(1).default('.data'),
  EVENT_STORE: z.enum(['jetstream', 'eventstoredb']).default('jetstream'),
  ESDB_URL: z.string().regex(/^(esdb|esdb\+discover|kurrentdb|kurrent):\/\//, 'must be an esdb:// connection string').optional(),
  /**
   * `embedded`: LMDB under DATA_DIR, this process's own; `mongo`: MongoDB at MONGO_URL; `shared`:
   * the one-machine stand-in for a shared MongoDB, a store served over NATS by another process
   * (`REPLICAS=2 npm start` runs it), so that replicas of a service share their read models.
   */
  DOCUMENT_STORE: z.enum(['embedded', 'mongo', 'shared']).default('embedded'),
  REPLICA_NAME: replicaName,
  MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL').optional(),
  HEALTH_PORT: port(0),
  /** On SIGTERM, the process finishes what is under way and exits within this time. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(20_000),
  HELPER_THREAD_NICE: helperThreadNice,
  LOG_LEVEL: logLevel,
  LOG_FORMAT: logFormat,
};

/** A production store kind needs its URL; shared by every service's schema. */
export function requireStoreUrls(
  config: { EVENT_STORE: string; ESDB_URL?: string | undefined; DOCUMENT_STORE: string; MONGO_URL?: string | undefined } & Parameters<typeof requireNatsCredentialPairs>[0],
  ctx: z.RefinementCtx,
): void {
  if (config.EVENT_STORE === 'eventstoredb' && !config.ESDB_URL) {
    ctx.addIssue({ code: 'custom', path: ['ESDB_URL'], message: 'is required when EVENT_STORE=eventstoredb' });
  }
  if (config.DOCUMENT_STORE === 'mongo' && !config.MONGO_URL) {
    ctx.addIssue({ code: 'custom', path: ['MONGO_URL'], message: 'is required when DOCUMENT_STORE=mongo' });
  }
  requireNatsCredentialPairs(config, ctx);
}

export const serviceConfigSchema = z.object(serviceConfigShape).superRefine(requireStoreUrls);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;

export const geoConfigShape = {
  ...serviceConfigShape,
  /** A real points-of-interest extract (GeoJSON or CSV); without it the synthetic generator is used. */
  GEO_POI_EXTRACT_PATH: z.string().min(1).optional(),
};
export const geoConfigSchema = z.object(geoConfigShape).superRefine(requireStoreUrls);
export type GeoConfig = z.output<typeof geoConfigSchema>;

export const searchesConfigShape = {
  ...serviceConfigShape,
  /** Hosts or CIDR ranges webhooks may target although private (tests, private deployments). */
  WEBHOOK_PRIVATE_TARGETS_ALLOWED: z.string().default(''),
  MAX_SEARCHES_PER_ACCOUNT: z.coerce.number().int().min(1).max(1_000_000).default(1000),
};
export const searchesConfigSchema = z.object(searchesConfigShape).superRefine(requireStoreUrls);
export type SearchesConfig = z.output<typeof searchesConfigSchema>;

const durationMs = (fallback: number) => z.coerce.number().int().min(1).max(7 * 24 * 3600 * 1000).default(fallback);

export const notifierConfigShape = {
  ...serviceConfigShape,
  /** Hosts or CIDR ranges webhooks may target although private (tests, private deployments). */
  WEBHOOK_PRIVATE_TARGETS_ALLOWED: z.string().default(''),
  /** A receiver must answer 2xx within this time. */
  WEBHOOK_TIMEOUT_MS: durationMs(15_000),
  /** Retries after the first attempt (spec: 5). */
  WEBHOOK_MAX_RETRIES: z.coerce.number().int().min(0).max(100).default(5),
  /** Pause between attempts (spec: one hour). */
  WEBHOOK_RETRY_INTERVAL_MS: durationMs(3_600_000),
  /** How long the previous secret still signs after a rotation. */
  WEBHOOK_SECRET_OVERLAP_MS: durationMs(24 * 3_600_000),
  /** Requests in flight at once, over every endpoint. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(256),
  /** Keys the webhook signing secrets are stored sealed under (see secrets-key.ts). */
  SECRETS_KEY: secretsKey,
  ...mailConfigShape,
};
export const notifierConfigSchema = z.object(notifierConfigShape).superRefine(requireStoreUrls);
export type NotifierConfig = z.output<typeof notifierConfigSchema>;

export const gatewayConfigShape = {
  NATS_URL: natsUrl,
  NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  NATS_REPLICAS: natsReplicas,
  ...natsCredentialsShape,
  HOST: z.string().min(1).default('0.0.0.0'),
  REPLICA_NAME: replicaName,
  PORT: port(3000),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Comma-separated keys accepted in X-API-KEY, in addition to the key file in DATA_DIR. */
  API_KEYS: z.string().default(''),
  /** Key for /admin routes (ingestion). Without it those routes answer 403. */
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).max(60000).default(5000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  /** On SIGTERM, the gateway finishes the requests under way and exits within this time. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(20_000),
  HELPER_THREAD_NICE: helperThreadNice,
  LOG_LEVEL: logLevel,
  LOG_FORMAT: logFormat,
  /** Requests an API key may make per window on average; 0 turns rate limits off. */
  RATE_LIMIT_REQUESTS: z.coerce.number().int().min(0).max(1_000_000).default(1200),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).max(24 * 3600 * 1000).default(60_000),
  /** Requests an API key may make at once, above the average. */
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /**
   * Failed authentications (a missing, unknown or revoked key) one client address may make per
   * minute, shared across gateways; past it, 429 with Retry-After. 0 turns the limit off.
   */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(30),
  /** Requests one client address may make per minute to the public routes that ask a service (location autocomplete); 0: no limit. */
  PUBLIC_REQUESTS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(600),
  /** Of which at once (a user typing in a search box sends one per keystroke). */
  PUBLIC_REQUESTS_BURST: z.coerce.number().int().min(1).max(100_000).default(60),
  /**
   * Proxies whose X-Forwarded-For names the client (comma-separated addresses or CIDR ranges, such
   * as the ingress's): the client address of rate limits is read through them. Empty: the socket's.
   */
  TRUST_PROXY: z
    .string()
    .default('')
    .refine((value) => value.split(',').every((entry) => entry.trim() === '' || /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry.trim())), {
      message: 'must be IP addresses or CIDR ranges separated by commas',
    }),
};

export const gatewayConfigSchema = z.object(gatewayConfigShape).superRefine(requireNatsCredentialPairs);

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
