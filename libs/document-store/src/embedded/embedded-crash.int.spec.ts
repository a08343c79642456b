import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StoredDocument } from '../document-store.port';
import { EmbeddedDocumentStore } from './embedded-document-store';

/** The built store (npm test builds before Jest runs): the writer must run in a process of its own to be killed. */
const BUILT = resolve(__dirname, '..', '..', '..', '..', 'dist', 'libs', 'document-store', 'src', 'index.js');

/**
 * A projection in miniature: resumes after its stored checkpoint; commit N writes the five
 * documents of batch N and the checkpoint N together, as fast as it can, and says each on stdout.
 */
const WRITER = `
const { EmbeddedDocumentStore } = require(${JSON.stringify(BUILT)});
const store = new EmbeddedDocumentStore({ dataDir: process.argv[1] });
store.collection({ name: 'items', indexes: [{ fields: { batch: 1 }, serves: 'items of a batch' }] });
const checkpoints = store.collection({ name: 'checkpoints', indexes: [] });
(async () => {
  const resumed = (await checkpoints.findById('writer'))?.position ?? 0;
  for (let n = resumed + 1; ; n++) {
    const writes = [];
    for (let i = 0; i < 5; i++) writes.push({ collection: 'items', upsert: { _id: n + ':' + i, revision: n, batch: n, body: 'x'.repeat(2000 + (n % 7) * 300) } });
    writes.push({ collection: 'checkpoints', upsert: { _id: 'writer', revision: n, position: n } });
    await store.commit(writes);
    process.stdout.write(n + '\\n');
  }
})();
`;

type Item = StoredDocument & { batch: number };

describe('embedded store under kill -9', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('keeps every commit whole: after a kill at a random instant, the checkpoint matches the documents exactly', async () => {
    expect(existsSync(BUILT)).toBe(true);
    const dataDir = mkdtempSync(join(tmpdir(), 'store-crash-'));
    dirs.push(dataDir);
    let lastAcknowledged = 0;
    // Several rounds on the same data: each restart must find a consistent store and go on from it.
    for (let round = 0; round < 4; round++) {
      const child = spawn(process.execPath, ['-e', WRITER, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout.setEncoding('utf8');
      let writing: () => void = () => undefined;
      const firstCommit = new Promise<void>((resolve) => (writing = resolve));
      child.stdout.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line) lastAcknowledged = Math.max(lastAcknowledged, Number(line));
        writing();
      });
      const exited = new Promise((done) => child.once('exit', done));
      // Once it commits (start-up time varies with the machine's load), let it run a random
      // while, then kill it outright, mid-commit as likely as not.
      await Promise.race([firstCommit, exited]);
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)));
      child.kill('SIGKILL');
      await exited;

      const store = new EmbeddedDocumentStore({ dataDir });
      const items = store.collection<Item>({ name: 'items', indexes: [{ fields: { batch: 1 }, serves: 'items of a batch' }] });
      const checkpoint = (await store.collection<StoredDocument & { position: number }>({ name: 'checkpoints', indexes: [] }).findById('writer'))?.position ?? 0;
      // Nothing acknowledged is lost, and nothing beyond the checkpoint half-exists.
      expect(checkpoint).toBeGreaterThanOrEqual(lastAcknowledged);
      expect(await items.count({})).toBe(checkpoint * 5);
      expect(await items.count({ batch: checkpoint })).toBe(checkpoint > 0 ? 5 : 0);
      expect(await items.count({ batch: checkpoint + 1 })).toBe(0);
      await store.close();
    }
    expect(lastAcknowledged).toBeGreaterThan(10);
  }, 60_000);
});
