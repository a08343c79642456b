import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import type { CreatedAccount } from '@immo/contracts';
import { NatsRpcClient } from '@immo/service-kit';
import { startStackFixture, type StackFixture } from '@immo/stack';
import { runAdminCommand } from './admin-cli';

/** `npm run admin -- <args>` against the stack's NATS, as its `admin` user: its exit code and what it printed. */
async function admin(fixture: StackFixture, ...args: string[]): Promise<{ code: number; lines: string[] }> {
  const nats = await connect({ ...fixture.stack.natsConnectOptions('admin'), name: 'admin-cli-e2e' });
  try {
    const lines: string[] = [];
    const code = await runAdminCommand(args, new NatsRpcClient(nats, 10_000), (line) => lines.push(line));
    return { code, lines };
  } finally {
    await nats.close();
  }
}

/**
 * A rotation of SECRETS_KEY as the README describes it, on one data directory: the key `npm
 * start` made (k1), then a new key first with k1 still there, `secrets rekey`, and k2 alone.
 * Accounts keep their webhook secrets throughout.
 */
describe('npm run admin -- secrets rekey (the stack, its SECRETS_KEY rotated)', () => {
  let dataDir: string;
  let fixture: StackFixture | null = null;
  let account: CreatedAccount;
  const k2 = `k2:${randomBytes(32).toString('base64')}`;
  let k1: string;
  let secrets: { account: string; development: string };
  const restart = async (SECRETS_KEY?: string) => {
    await fixture?.teardown();
    fixture = await startStackFixture(SECRETS_KEY === undefined ? {} : { SECRETS_KEY }, dataDir);
    return fixture;
  };
  const secretOf = async (stack: StackFixture, apiKey: string) => (await stack.get('/account/webhook-secret', { 'X-API-KEY': apiKey })).body;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'secrets-rekey-e2e-'));
    const stack = await restart();
    k1 = readFileSync(join(dataDir, 'secrets-key'), 'utf8').trim();
    account = (await stack.send('POST', '/admin/accounts', { name: 'Rekey e2e' }, { 'X-API-KEY': stack.stack.adminApiKey })).body as CreatedAccount;
    await secretOf(stack, account.apiKey);
    // A rotation, so that a record holds a previous secret as well.
    await stack.send('POST', '/account/webhook-secret/rotate', {}, { 'X-API-KEY': account.apiKey });
    secrets = {
      account: ((await secretOf(stack, account.apiKey)) as { secret: string }).secret,
      development: ((await secretOf(stack, stack.stack.apiKey)) as { secret: string }).secret,
    };
  }, 120_000);

  afterAll(async () => {
    await fixture?.teardown();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds nothing to re-encrypt while every record is under the first key', async () => {
    expect(k1).toMatch(/^k1:/);
    expect(await admin(fixture!, 'secrets', 'rekey')).toEqual({
      code: 0,
      lines: ['0 webhook secret record(s) re-encrypted under key k1', 'Every stored webhook secret is under key k1: the other keys can be dropped from SECRETS_KEY.'],
    });
  });

  it('with a new key put first, reads the secrets under the old one and re-encrypts them all under the new one', async () => {
    const stack = await restart(`${k2},${k1}`);
    expect(await secretOf(stack, account.apiKey)).toEqual({ secret: secrets.account });

    expect(await admin(stack, 'secrets', 'rekey')).toEqual({
      code: 0,
      lines: ['2 webhook secret record(s) re-encrypted under key k2', 'Every stored webhook secret is under key k2: the other keys can be dropped from SECRETS_KEY.'],
    });
    expect((await admin(stack, 'secrets', 'rekey')).lines[0]).toBe('0 webhook secret record(s) re-encrypted under key k2');
  }, 120_000);

  it('with the old key dropped, still answers every account the secret it had, and signs with both of a rotated account', async () => {
    const stack = await restart(k2);

    expect(await secretOf(stack, account.apiKey)).toEqual({ secret: secrets.account });
    expect(await secretOf(stack, stack.stack.apiKey)).toEqual({ secret: secrets.development });
    const dryRun = await stack.get(`/webhook-tester?dryRun=true&endpoint=${encodeURIComponent('https://hooks.example.com/rekey')}`, { 'X-API-KEY': account.apiKey });
    expect(dryRun.status).toBe(200);
    expect((dryRun.body as { headers: Record<string, string> }).headers['webhook-signature']?.split(' ')).toHaveLength(2);
  }, 120_000);

  it('names the accounts it cannot read when SECRETS_KEY lost the key they are under, and exits 1', async () => {
    const stack = await restart(`k3:${randomBytes(32).toString('base64')}`);

    // The notifier cannot read the secret: the gateway answers that it failed, and nothing is signed with another one.
    expect((await stack.get('/account/webhook-secret', { 'X-API-KEY': account.apiKey })).status).toBe(502);
    const { code, lines } = await admin(stack, 'secrets', 'rekey');
    expect(code).toBe(1);
    expect(lines.slice(0, 2)).toEqual([
      '0 webhook secret record(s) re-encrypted under key k3',
      'error: 2 record(s) could not be read with SECRETS_KEY (sealed under a key it no longer holds, or altered); put that key back before dropping any:',
    ]);
    // The account made here and the development account, in no promised order.
    const accounts = lines.slice(2);
    expect(accounts).toHaveLength(2);
    expect(accounts).toContain(`    account ${account.id}`);
    for (const line of accounts) expect(line).toMatch(/^ {4}account [0-9a-f-]{36}$/);
  }, 120_000);

  it('refuses extra arguments with its usage', async () => {
    const { code, lines } = await admin(fixture!, 'secrets', 'rekey', 'now');
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('secrets rekey                   re-encrypt the stored webhook secrets');
  });
});
