import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './stack-fixture';

/** `npm run reset` as a user runs it, on a throw-away data directory. */
function reset(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'scripts', 'reset.mjs'), ...args], { env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8', input: '' });
}

describe('npm run reset', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'reset-')), 'data');
    mkdirSync(join(dataDir, 'nats'), { recursive: true });
    writeFileSync(join(dataDir, 'api-key'), 'imk_x');
  });

  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('given no terminal to confirm on and no --yes, then it deletes nothing and says how to confirm', () => {
    const run = reset(dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm run reset -- --yes');
    expect(existsSync(join(dataDir, 'api-key'))).toBe(true);
  });

  it('given --yes, then the data directory is gone', () => {
    const run = reset(dataDir, '--yes');
    expect(run.status).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('given a pid file of a process that is not this directory\'s nats-server, then it still resets (a stale file)', () => {
    writeFileSync(join(dataDir, 'nats', 'nats-server.pid'), String(process.pid));
    expect(reset(dataDir, '--yes').status).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });
});
