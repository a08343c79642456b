/**
 * The NATS passwords of the embedded stack: one per principal, generated on the first start and
 * kept in DATA_DIR/nats-auth/passwords.json (readable by its owner only), so a restart keeps them.
 * The nats-server configuration written next to each node holds them; each process gets its own
 * in NATS_USER / NATS_PASSWORD, and `npm run admin` finds the operators' one here.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionOptions } from 'nats';
import { NATS_PRINCIPALS, natsConnectionOptions, natsPasswordsFile, natsUserOf, type NatsPrincipal } from '@immo/service-kit';

export type NatsPasswords = Record<NatsPrincipal, string>;

export function ensureNatsPasswords(dataDir: string): NatsPasswords {
  const file = natsPasswordsFile(dataDir);
  const known: Partial<NatsPasswords> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<NatsPasswords>) : {};
  const passwords = Object.fromEntries(NATS_PRINCIPALS.map((principal) => [principal, known[principal] ?? randomBytes(24).toString('base64url')])) as NatsPasswords;
  if (NATS_PRINCIPALS.some((principal) => known[principal] === undefined)) {
    mkdirSync(join(dataDir, 'nats-auth'), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
  }
  return passwords;
}

/** The NATS_USER / NATS_PASSWORD of a principal's process. */
export function natsCredentialEnv(passwords: NatsPasswords | null, principal: NatsPrincipal): NodeJS.ProcessEnv {
  return passwords ? { NATS_USER: natsUserOf(principal), NATS_PASSWORD: passwords[principal] } : {};
}

/** nats.js options to connect as a principal (its credentials and inbox prefix). */
export function natsConnectOptionsOf(passwords: NatsPasswords | null, principal: NatsPrincipal, natsUrl: string): ConnectionOptions {
  // The services' own options, as their NATS_* variables would give them (nats.js's default connection timeout).
  return natsConnectionOptions({ NATS_URL: natsUrl, NATS_CONNECT_TIMEOUT_MS: 20_000, ...natsCredentialEnv(passwords, principal) }, principal);
}
