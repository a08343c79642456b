import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warmPageCache } from './page-cache-warmer';

describe('warmPageCache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'page-cache-warmer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the whole file, a chunk at a time', async () => {
    const path = join(dir, 'data.mdb');
    writeFileSync(path, Buffer.alloc(10_000, 7));
    await expect(warmPageCache(path, () => false, 4_096)).resolves.toBe(10_000);
  });

  it('stops between chunks once asked to', async () => {
    const path = join(dir, 'data.mdb');
    writeFileSync(path, Buffer.alloc(10_000, 7));
    let chunks = 0;
    await expect(warmPageCache(path, () => chunks++ >= 1, 4_096)).resolves.toBe(4_096);
  });

  it('reads nothing of a missing file, without failing', async () => {
    await expect(warmPageCache(join(dir, 'missing.mdb'))).resolves.toBe(0);
  });
});
