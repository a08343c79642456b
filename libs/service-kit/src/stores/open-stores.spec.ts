import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const BUILT = resolve(__dirname, '..', '..', '..', '..', 'dist', 'libs', 'service-kit', 'src', 'stores', 'open-stores.js');

describe('openDocumentStore (embedded)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'open-stores-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends the service, saying why, once its read models fail a commit: memory is then ahead of the file', () => {
    expect(existsSync(BUILT)).toBe(true);
    // In a process of its own, since it exits. A key longer than LMDB takes fails the commit in the file.
    const script = `
      const { openDocumentStore } = require(${JSON.stringify(BUILT)});
      (async () => {
        const store = await openDocumentStore('listings', { DATA_DIR: process.argv[1], DOCUMENT_STORE: 'embedded' });
        const things = store.collection({ name: 'things', indexes: [] });
        await things.upsert({ _id: 'fine', revision: 1 });
        await things.upsert({ _id: 'x'.repeat(3000), revision: 1 }).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        console.log('still running');
      })();`;
    const child = spawnSync(process.execPath, ['-e', script, dataDir], { encoding: 'utf8', timeout: 30_000 });
    expect(child.stdout).not.toContain('still running');
    expect(child.status).toBe(1);
    expect(child.stderr).toMatch(/\[listings\] read models failed: .*; exiting, to be restarted/);
  });
});
