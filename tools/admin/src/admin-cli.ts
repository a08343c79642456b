/**
 * `npm run admin -- <command>`: account, key and secret operations for operators, sent over NATS
 * to the services of a running stack (NATS_URL, default nats://127.0.0.1:4222), as the NATS user
 * `admin` (NATS_USER / NATS_PASSWORD, or the password `npm start` generated in DATA_DIR). The
 * account operations are those of the admin HTTP routes, for when the gateway is not the way in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { connect, type NatsConnection } from 'nats';
import { NOTIFIER_SUBJECTS, SEARCHES_SUBJECTS, type AccountsPage, type CreatedAccount, type IssuedKey, type WebhookSecretsRekeyed } from '@immo/contracts';
import { natsClientSettingsFromEnv, natsConnectionOptions, natsPasswordsFile, NatsRpcClient, RpcCallError, type NatsClientSettings } from '@immo/service-kit';

export const USAGE = `usage: npm run admin -- <command>
  accounts create <name>          create an account and its first key (shown once)
  accounts list [page]            list accounts and their keys (ids only)
  keys rotate <accountId>         issue another key for an account (shown once)
  keys revoke <accountId> <keyId> revoke a key (every gateway refuses it within seconds)
  secrets rekey                   re-encrypt the stored webhook secrets under the first key of
                                  the notifier's SECRETS_KEY (a key rotation)`;

/** Every account's record is read and written once: far longer than a lookup may take. */
const REKEY_TIMEOUT_MS = 10 * 60_000;

export type Output = (line: string) => void;

/** Runs one command; returns the exit code. */
export async function runAdminCommand(args: string[], rpc: NatsRpcClient, out: Output): Promise<number> {
  const [group, command, ...rest] = args;
  try {
    if (group === 'accounts' && command === 'create' && rest.length >= 1) {
      const account = await rpc.request<CreatedAccount>(SEARCHES_SUBJECTS.createAccount, { name: rest.join(' ') });
      out(`account ${account.id} "${account.name}" created ${account.createdAt}`);
      out(`key ${account.keyId}: ${account.apiKey}`);
      out('The key is shown this once; keep it now.');
      return 0;
    }
    if (group === 'accounts' && command === 'list' && rest.length <= 1) {
      const page = rest[0] === undefined ? 1 : Number(rest[0]);
      if (!Number.isInteger(page) || page < 1) return usage(out, `page must be a positive integer, not "${rest[0]}"`);
      const accounts = await rpc.request<AccountsPage>(SEARCHES_SUBJECTS.listAccounts, { page });
      out(`${accounts.totalItems} account(s); page ${page}`);
      for (const account of accounts.items) {
        out(`${account.id}  ${account.createdAt}  ${account.name}`);
        for (const key of account.keys) out(`    key ${key.keyId}  created ${key.createdAt}${key.revokedAt ? `  revoked ${key.revokedAt}` : ''}`);
      }
      return 0;
    }
    if (group === 'keys' && command === 'rotate' && rest.length === 1) {
      const key = await rpc.request<IssuedKey>(SEARCHES_SUBJECTS.issueKey, { accountId: rest[0] });
      out(`key ${key.keyId}: ${key.apiKey}`);
      out('The key is shown this once; the older keys keep working until you revoke them.');
      return 0;
    }
    if (group === 'keys' && command === 'revoke' && rest.length === 2) {
      await rpc.request(SEARCHES_SUBJECTS.revokeKey, { accountId: rest[0], keyId: rest[1] });
      out(`key ${rest[1]} revoked`);
      return 0;
    }
    if (group === 'secrets' && command === 'rekey' && rest.length === 0) {
      const rekeyed = await rpc.request<WebhookSecretsRekeyed>(NOTIFIER_SUBJECTS.rekeyWebhookSecrets, {}, { timeoutMs: REKEY_TIMEOUT_MS });
      out(`${rekeyed.reencrypted} webhook secret record(s) re-encrypted under key ${rekeyed.keyId}`);
      if (rekeyed.unreadable.length === 0) {
        out(`Every stored webhook secret is under key ${rekeyed.keyId}: the other keys can be dropped from SECRETS_KEY.`);
        return 0;
      }
      out(`error: ${rekeyed.unreadable.length} record(s) could not be read with SECRETS_KEY (sealed under a key it no longer holds, or altered); put that key back before dropping any:`);
      for (const accountId of rekeyed.unreadable) out(`    account ${accountId}`);
      return 1;
    }
    return usage(out);
  } catch (error) {
    if (error instanceof RpcCallError) {
      if (error.kind === 'unavailable') out(`error: no ${group === 'secrets' ? 'notifier' : 'searches'} service answers (is the stack running?): ${error.message}`);
      else if (error.payload?.violations?.length) out(`error: ${error.payload.violations.map((v) => `${v.propertyPath} ${v.message}`).join('; ')}`);
      else out(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function usage(out: Output, problem?: string): number {
  if (problem) out(`error: ${problem}`);
  out(USAGE);
  return 2;
}

/** The operators' NATS credentials: from the environment, or those `npm start` keeps in DATA_DIR. */
export function adminNatsSettings(env: NodeJS.ProcessEnv = process.env): NatsClientSettings {
  const settings = natsClientSettingsFromEnv(env);
  if (settings.NATS_USER !== undefined) return settings;
  const file = natsPasswordsFile(env['DATA_DIR'] ?? '.data');
  if (!existsSync(file)) return settings;
  const passwords = JSON.parse(readFileSync(file, 'utf8')) as { admin?: string };
  return passwords.admin ? { ...settings, NATS_USER: 'admin', NATS_PASSWORD: passwords.admin } : settings;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') return usage(console.log);
  const settings = adminNatsSettings();
  let nats: NatsConnection;
  try {
    nats = await connect({ ...natsConnectionOptions(settings, 'admin'), name: 'admin-cli', maxReconnectAttempts: 0 });
  } catch (error) {
    console.error(`error: cannot reach NATS at ${settings.NATS_URL}${settings.NATS_USER ? ` as ${settings.NATS_USER}` : ''} (${error instanceof Error ? error.message : String(error)}); start the stack (npm start) or set NATS_URL, NATS_USER and NATS_PASSWORD`);
    return 1;
  }
  try {
    return await runAdminCommand(argv, new NatsRpcClient(nats, 10_000), (line) => console.log(line));
  } finally {
    await nats.close();
  }
}
