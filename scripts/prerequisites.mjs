// What `npm start` and `npm test` need on a fresh Debian/Ubuntu machine with Node 20:
// the npm dependencies and a nats-server binary. Installs them when it can, or says exactly how.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/**
 * Installs npm dependencies when node_modules is missing or older than the lock file. `quiet`
 * keeps npm to errors (its warnings would flood a first start), under one line saying so.
 */
export function ensureDependencies({ quiet = false } = {}) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && (!existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs)) return;
  console.log('  … installing npm dependencies (a minute or two on a fresh clone)');
  const args = existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  run('npm', quiet ? [...args, '--loglevel=error'] : args);
}

export function findNatsServer() {
  const candidates = [
    process.env.NATS_SERVER_BIN,
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nats-server')),
    '/usr/sbin/nats-server',
    '/usr/local/sbin/nats-server',
  ].filter(Boolean);
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Finds nats-server, installing Debian's package when missing and running as root. */
export function ensureNatsServer() {
  let binary = findNatsServer();
  if (binary) return binary;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error('nats-server is not installed. Install it with: sudo apt-get update && sudo apt-get install -y nats-server');
  }
  console.log('Installing nats-server from the OS package manager…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', 'nats-server'], { env });
  binary = findNatsServer();
  if (!binary) throw new Error('nats-server was installed but cannot be found on PATH or in /usr/sbin');
  return binary;
}

/**
 * Chromium, for the test that renders the docs page in a real browser: installed from the OS
 * package manager when missing and running as root. Not needed to run the product, so a failed
 * install only warns (that one test then says it is skipped, and why).
 */
export function ensureChromium() {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'chromium'));
  const executable = (candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if ([...onPath, '/usr/bin/chromium'].some(executable)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.warn('chromium is not installed: the docs-page browser test will be skipped (sudo apt-get install -y chromium)');
    return;
  }
  console.log('Installing chromium from the OS package manager (for the docs-page browser test)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', 'chromium'], { env });
  } catch (error) {
    console.warn(`chromium could not be installed (${error.message}): the docs-page browser test will be skipped`);
  }
}

export function build() {
  run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
}
