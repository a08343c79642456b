import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where `nats-server` is: NATS_SERVER_BIN, the PATH, or Debian's /usr/sbin (not on every PATH). */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    env['NATS_SERVER_BIN'],
    ...(env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'nats-server')),
    '/usr/sbin/nats-server',
    '/usr/local/sbin/nats-server',
  ].filter((candidate): candidate is string => Boolean(candidate));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next place
    }
  }
  return null;
}
