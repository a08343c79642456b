import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { NOTIFIER_SUBJECTS, SEARCHES_SUBJECTS } from '@immo/contracts';
import { newCertificate, startNatsServer, type RunningNatsServer } from '@immo/testing';
import { natsConnectionOptions } from './nats-connection-options';
import { NATS_PRINCIPALS, type NatsPrincipal } from './nats-permissions';
import { natsAccountsConfig, natsPasswordVariableOf } from './nats-server-authorization';

const password = (principal: NatsPrincipal) => `password-of-${principal}-0123456789`;

/** The first permission the server refused this connection: `<operation> <subject>`. */
async function nextError(nats: NatsConnection): Promise<string> {
  for await (const status of nats.status()) {
    if (status.type === 'error' && status.permissionContext) return `${status.permissionContext.operation} ${status.permissionContext.subject}`;
  }
  return 'closed';
}

describe('NATS users and their allow-lists (real nats-server)', () => {
  let server: RunningNatsServer;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ config: natsAccountsConfig((principal) => JSON.stringify(password(principal))) });
  });

  afterAll(async () => {
    for (const connection of connections) await connection.close().catch(() => undefined);
    await server?.stop();
  });

  const as = async (principal: NatsPrincipal): Promise<NatsConnection> => {
    const nats = await connect(natsConnectionOptions({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000, NATS_USER: principal, NATS_PASSWORD: password(principal) }, principal));
    connections.push(nats);
    return nats;
  };

  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connect({ servers: server.url, timeout: 2000 })).rejects.toThrow(/Authorization Violation/i);
    await expect(connect({ servers: server.url, timeout: 2000, user: 'gateway', pass: 'not-the-password-at-all' })).rejects.toThrow(/Authorization Violation/i);
  });

  it('lets each principal connect with its own password', async () => {
    for (const principal of NATS_PRINCIPALS) expect((await as(principal)).isClosed()).toBe(false);
  });

  it('carries a request and its answer between principals granted them (gateway asks the notifier for a webhook secret)', async () => {
    const notifier = await as('notifier');
    notifier.subscribe(NOTIFIER_SUBJECTS.webhookSecret, { callback: (_error, message) => message.respond(new TextEncoder().encode('whsec_answer')) });
    await notifier.flush();
    const gateway = await as('gateway');
    const answer = await gateway.request(NOTIFIER_SUBJECTS.webhookSecret, new Uint8Array(), { timeout: 2000 });
    expect(new TextDecoder().decode(answer.data)).toBe('whsec_answer');
  });

  it('refuses a service publishing a subject outside its list (the notifier creating an account)', async () => {
    const notifier = await as('notifier');
    const refused = nextError(notifier);
    notifier.publish(SEARCHES_SUBJECTS.createAccount, new TextEncoder().encode('{"name":"intruder"}'));
    expect(await refused).toBe(`publish ${SEARCHES_SUBJECTS.createAccount}`);
  });

  it("refuses a service subscribing to another principal's inbox, where answers holding secrets go", async () => {
    const notifier = await as('notifier');
    const refused = nextError(notifier);
    notifier.subscribe('_INBOX_gateway.>');
    expect(await refused).toBe('subscription _INBOX_gateway.>');
  });

  it('refuses a service listening to requests it does not serve (the gateway taking key look-ups)', async () => {
    const gateway = await as('gateway');
    const refused = nextError(gateway);
    gateway.subscribe(SEARCHES_SUBJECTS.keyById);
    expect(await refused).toBe(`subscription ${SEARCHES_SUBJECTS.keyById}`);
  });

  it("refuses a service touching another service's event stream (the notifier reading the searches events)", async () => {
    const notifier = await as('notifier');
    const refused = nextError(notifier);
    notifier.publish('$JS.API.STREAM.INFO.SEARCHES_EVENTS');
    expect(await refused).toBe('publish $JS.API.STREAM.INFO.SEARCHES_EVENTS');
  });
});

describe('deploy/nats/accounts.conf (production, passwords from the environment)', () => {
  let server: RunningNatsServer;

  beforeAll(async () => {
    // nats-server reads `$NATS_PASSWORD_…` from its environment, as compose and Kubernetes give it.
    const env = Object.fromEntries(NATS_PRINCIPALS.map((principal) => [natsPasswordVariableOf(principal), password(principal)]));
    server = await startNatsServer({ config: readFileSync(join(__dirname, '..', '..', '..', '..', 'deploy', 'nats', 'accounts.conf'), 'utf8'), env });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses an anonymous client and accepts each service with the password its environment holds', async () => {
    await expect(connect({ servers: server.url, timeout: 2000 })).rejects.toThrow(/Authorization Violation/i);
    const gateway = await connect({ servers: server.url, user: 'gateway', pass: password('gateway'), timeout: 2000 });
    await gateway.close();
  });
});

describe('TLS to NATS (NATS_TLS_CA_FILE)', () => {
  let server: RunningNatsServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-tls-'));
    const { key, cert } = await newCertificate();
    writeFileSync(join(dir, 'key.pem'), key);
    writeFileSync(join(dir, 'cert.pem'), cert);
    const tls = `tls { cert_file: ${JSON.stringify(join(dir, 'cert.pem'))}, key_file: ${JSON.stringify(join(dir, 'key.pem'))} }`;
    server = await startNatsServer({ config: `${tls}\n${natsAccountsConfig((principal) => JSON.stringify(password(principal)))}\n` });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = (caFile?: string) => ({ NATS_URL: server.url, NATS_CONNECT_TIMEOUT_MS: 2000, NATS_USER: 'geo', NATS_PASSWORD: password('geo'), ...(caFile ? { NATS_TLS_CA_FILE: caFile } : {}) });

  it('connects over TLS, verifying the server against the CA given, and fails without it', async () => {
    const nats = await connect(natsConnectionOptions(settings(join(dir, 'cert.pem')), 'geo'));
    expect(nats.info?.tls_required).toBe(true);
    await nats.close();
    await expect(connect(natsConnectionOptions(settings(), 'geo'))).rejects.toThrow();
  });
});
