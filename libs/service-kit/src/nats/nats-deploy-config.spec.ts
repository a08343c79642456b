import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_PRINCIPALS } from './nats-permissions';
import { natsAccountsConfig, natsPasswordVariableOf } from './nats-server-authorization';

const FILE = join(__dirname, '..', '..', '..', '..', 'deploy', 'nats', 'accounts.conf');

/** The users and allow-lists production's nats-servers load, each password read from the server's environment. */
function deployedAccountsConfig(): string {
  return [
    '# nats-server users and permissions of every service, generated from the code',
    '# (libs/service-kit/src/nats/nats-permissions.ts); refresh it with',
    '#   UPDATE_DEPLOY_FILES=1 npx jest libs/service-kit/src/nats/nats-deploy-config.spec.ts',
    '# Each password comes from the nats-server environment: ' + NATS_PRINCIPALS.map(natsPasswordVariableOf).join(', ') + '.',
    natsAccountsConfig((principal) => `$${natsPasswordVariableOf(principal)}`),
    '',
  ].join('\n');
}

describe('deploy/nats/accounts.conf', () => {
  it('is what the code grants today (a subject granted in the code reaches production)', () => {
    if (process.env['UPDATE_DEPLOY_FILES'] === '1') writeFileSync(FILE, deployedAccountsConfig());
    expect(readFileSync(FILE, 'utf8')).toBe(deployedAccountsConfig());
  });
});
