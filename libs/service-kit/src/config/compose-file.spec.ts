import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { APP_CONFIGS } from './app-configs';

/**
 * No Docker engine runs where the tests run, so the production compose file is kept honest here:
 * every app is defined, reads only variables its schema knows, and those values pass the schema.
 */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; build?: { args?: { APP?: string } }; image?: string }>;
  };

  /** `${VAR:?message}` stands for an operator-supplied value; use a valid placeholder. */
  const placeholder = (name: string) => {
    if (name === 'SECRETS_KEY') return `k1:${Buffer.alloc(32).toString('base64')}`;
    return name.endsWith('KEY') || name.endsWith('KEYS') || name.includes('PASSWORD') ? 'placeholder-key-0123456789' : '';
  };
  /** `${VAR:-default}` takes its default (what runs when the operator sets nothing); `${VAR:?…}` a valid placeholder. */
  const resolve = (value: string) =>
    String(value).replace(/\$\{([A-Z_]+)(:([?-])([^}]*))?\}/g, (_m, name: string, _rest: string | undefined, kind: string | undefined, fallback: string | undefined) =>
      kind === '-' ? (fallback ?? '') : placeholder(name),
    );

  it('gives each app its own NATS user, with the password the nats-servers hold for it', () => {
    for (const app of ['gateway', 'listings', 'geo', 'searches', 'notifier']) {
      const password = `\${NATS_PASSWORD_${app.toUpperCase()}`;
      expect(compose.services[app]?.environment?.['NATS_USER']).toBe(app);
      expect(compose.services[app]?.environment?.['NATS_PASSWORD']).toContain(password);
      expect(compose.services['nats-1']?.environment?.[`NATS_PASSWORD_${app.toUpperCase()}`]).toContain(password);
    }
    // Only the gateway is published on the host.
    expect(Object.entries(compose.services).filter(([, service]) => (service as { ports?: unknown[] }).ports !== undefined).map(([name]) => name)).toEqual(['gateway']);
  });

  it('runs a three-node NATS cluster, EventStoreDB, MongoDB and the five apps', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['eventstore', 'gateway', 'geo', 'listings', 'mongo', 'nats-1', 'nats-2', 'nats-3', 'notifier', 'searches'].sort(),
    );
  });

  it('clusters the NATS nodes, each routing to the two others, and has every app keep three copies of its streams and buckets on all three nodes', () => {
    const nodes = ['nats-1', 'nats-2', 'nats-3'];
    for (const node of nodes) {
      const command = (compose.services[node] as { command?: string[] }).command ?? [];
      const option = (name: string) => command[command.indexOf(name) + 1];
      expect([option('--name'), option('--cluster_name'), command.includes('-js')]).toEqual([node, 'immo', true]);
      expect((option('--routes') ?? '').split(',').sort()).toEqual(nodes.filter((other) => other !== node).map((other) => `nats://${other}:6222`));
      // Users and allow-lists from the generated file, no anonymous access.
      expect(option('-c')).toBe('/etc/nats/accounts.conf');
    }
    for (const app of Object.keys(APP_CONFIGS)) {
      expect(compose.services[app]?.environment).toMatchObject({ NATS_REPLICAS: '3', NATS_URL: nodes.map((node) => `nats://${node}:4222`).join(',') });
    }
  });

  for (const [app, config] of Object.entries(APP_CONFIGS)) {
    describe(app, () => {
      const service = compose.services[app];

      it('is built from the repository with its APP', () => {
        expect(service?.build?.args?.APP).toBe(app);
      });

      it('sets only variables its config schema declares', () => {
        const unknown = Object.keys(service?.environment ?? {}).filter((name) => !config.variables.includes(name));
        expect(unknown).toEqual([]);
      });

      it('passes its config schema with the production values', () => {
        const env = Object.fromEntries(Object.entries(service?.environment ?? {}).map(([k, v]) => [k, resolve(v)]));
        const parsed = config.schema.safeParse(env);
        expect(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
      });
    });
  }

  it('has the operator supply the secrets: the client and admin keys, and the key webhook secrets are stored under', () => {
    expect(compose.services['gateway']?.environment).toMatchObject({ API_KEYS: expect.stringMatching(/^\$\{API_KEYS:\?/), ADMIN_API_KEY: expect.stringMatching(/^\$\{ADMIN_API_KEY:\?/) });
    expect(compose.services['notifier']?.environment).toMatchObject({ SECRETS_KEY: expect.stringMatching(/^\$\{SECRETS_KEY:\?[^$]*\}$/) });
  });

  it('points the services at the production stores', () => {
    for (const app of ['listings', 'searches', 'notifier', 'geo']) {
      expect(compose.services[app]?.environment).toMatchObject({ EVENT_STORE: 'eventstoredb', DOCUMENT_STORE: 'mongo' });
    }
  });
});
