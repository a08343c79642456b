import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function executable(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the PATH's directories, or null (a tool a test needs, or skips visibly without). */
export function executableOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return (env['PATH'] ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name)).find(executable) ?? null;
}

/** Where `nats-server` is: NATS_SERVER_BIN, the PATH, or Debian's /usr/sbin (not on every PATH). */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | null {
  const given = env['NATS_SERVER_BIN'];
  if (given && executable(given)) return given;
  return executableOnPath('nats-server', env) ?? ['/usr/sbin/nats-server', '/usr/local/sbin/nats-server'].find(executable) ?? null;
}
