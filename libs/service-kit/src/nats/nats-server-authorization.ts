/**
 * The `accounts` block of a nats-server configuration: the application account with JetStream
 * and one user per principal, each with its allow-lists (see `natsPermissions`), and the system
 * account. No `no_auth_user`: a client without credentials is refused.
 */
import { NATS_PRINCIPALS, natsPermissions, natsUserOf, type NatsPrincipal } from './nats-permissions';

/**
 * `password`: the configuration's token for a principal's password — a quoted literal (a
 * password generated into the data directory) or a `$VARIABLE` that nats-server reads from its
 * environment (compose and Kubernetes, where the passwords are Secrets).
 */
export function natsAccountsConfig(password: (principal: NatsPrincipal) => string): string {
  const grants = natsPermissions();
  const list = (subjects: string[]) => `[${subjects.map((subject) => JSON.stringify(subject)).join(', ')}]`;
  const users = NATS_PRINCIPALS.map((principal) => {
    const { publish, subscribe } = grants[principal];
    return [
      `      {`,
      `        user: ${JSON.stringify(natsUserOf(principal))}, password: ${password(principal)}`,
      `        permissions: {`,
      `          publish: { allow: ${list(publish)} }`,
      `          subscribe: { allow: ${list(subscribe)} }`,
      `        }`,
      `      }`,
    ].join('\n');
  });
  return ['accounts {', '  APP {', '    jetstream: enabled', '    users: [', users.join('\n'), '    ]', '  }', '  SYS {}', '}', 'system_account: SYS'].join('\n');
}

/** The environment variable holding a principal's password for nats-server (`NATS_PASSWORD_SHARED_STORE`…). */
export const natsPasswordVariableOf = (principal: NatsPrincipal): string => `NATS_PASSWORD_${principal.toUpperCase().replace(/-/g, '_')}`;
