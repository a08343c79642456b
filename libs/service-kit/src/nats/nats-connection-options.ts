import type { ConnectionOptions } from 'nats';
import { inboxPrefixOf, type NatsPrincipal } from './nats-permissions';

/** What a process needs to reach NATS (the NATS_* variables). */
export interface NatsClientSettings {
  NATS_URL: string;
  NATS_CONNECT_TIMEOUT_MS: number;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}

/**
 * nats.js options for a principal: its credentials, TLS when configured, and its own inbox
 * prefix, the only inboxes its NATS user may subscribe to (see `natsPermissions`).
 */
export function natsConnectionOptions(settings: NatsClientSettings, principal: NatsPrincipal | null): ConnectionOptions {
  const tls = settings.NATS_TLS_CA_FILE || settings.NATS_TLS_CERT_FILE
    ? {
        ...(settings.NATS_TLS_CA_FILE ? { caFile: settings.NATS_TLS_CA_FILE } : {}),
        ...(settings.NATS_TLS_CERT_FILE ? { certFile: settings.NATS_TLS_CERT_FILE } : {}),
        ...(settings.NATS_TLS_KEY_FILE ? { keyFile: settings.NATS_TLS_KEY_FILE } : {}),
      }
    : undefined;
  return {
    servers: settings.NATS_URL.split(',').map((server) => server.trim()),
    timeout: settings.NATS_CONNECT_TIMEOUT_MS,
    ...(settings.NATS_USER !== undefined ? { user: settings.NATS_USER, pass: settings.NATS_PASSWORD ?? '' } : {}),
    ...(tls ? { tls } : {}),
    ...(principal ? { inboxPrefix: inboxPrefixOf(principal) } : {}),
  };
}

/** The NATS_* settings from the environment, for tools that have no configuration schema. */
export function natsClientSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): NatsClientSettings {
  return {
    NATS_URL: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    NATS_CONNECT_TIMEOUT_MS: Number(env['NATS_CONNECT_TIMEOUT_MS'] ?? 3000),
    NATS_USER: env['NATS_USER'] || undefined,
    NATS_PASSWORD: env['NATS_PASSWORD'] || undefined,
    NATS_TLS_CA_FILE: env['NATS_TLS_CA_FILE'] || undefined,
    NATS_TLS_CERT_FILE: env['NATS_TLS_CERT_FILE'] || undefined,
    NATS_TLS_KEY_FILE: env['NATS_TLS_KEY_FILE'] || undefined,
  };
}
