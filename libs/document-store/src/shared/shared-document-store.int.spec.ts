import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { describeDocumentStoreContract } from '../document-store.contract';
import type { CollectionSpec, StoredDocument } from '../document-store.port';
import { serveDocumentStores, type DocumentStoreServer } from './document-store-server';
import { SharedDocumentStore } from './shared-document-store';

/** Against a real nats-server: the store served by one process and used by others. */
let nats: RunningNatsServer;
let serverConnection: NatsConnection;
let clientConnection: NatsConnection;
let server: DocumentStoreServer;
let dataDir: string;

beforeAll(async () => {
  nats = await startNatsServer();
  dataDir = mkdtempSync(join(tmpdir(), 'shared-store-'));
  serverConnection = await connect({ servers: nats.url });
  clientConnection = await connect({ servers: nats.url });
  server = serveDocumentStores({ nats: serverConnection, dataDir });
});

afterAll(async () => {
  await server?.stop();
  await clientConnection?.close();
  await serverConnection?.close();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describeDocumentStoreContract('shared over NATS', () => new SharedDocumentStore({ nats: clientConnection, database: 'contract' }));

interface Counter extends StoredDocument {
  value: number;
  text?: string;
}
const COUNTERS: CollectionSpec = { name: 'counters', indexes: [{ fields: { value: 1 }, serves: 'counters by value' }] };

describe('two clients of one database (two replicas of a service)', () => {
  it('see each other’s writes, and the revision guard orders them', async () => {
    const first = new SharedDocumentStore({ nats: clientConnection, database: 'replicas' });
    const second = new SharedDocumentStore({ nats: serverConnection, database: 'replicas' });
    const a = first.collection<Counter>(COUNTERS);
    const b = second.collection<Counter>(COUNTERS);
    await a.clear();
    expect(await a.upsert({ _id: 'c1', revision: 2, value: 2 })).toBe('inserted');
    expect(await b.findById('c1')).toEqual({ _id: 'c1', revision: 2, value: 2 });
    // The slower replica's older write changes nothing.
    expect(await b.upsert({ _id: 'c1', revision: 1, value: 1 })).toBe('stale');
    expect(await second.commit([{ collection: 'counters', upsert: { _id: 'c1', revision: 3, value: 3 } as Counter }])).toEqual(['updated']);
    expect(await a.findById('c1')).toEqual({ _id: 'c1', revision: 3, value: 3 });
  });

  it('sends a commit larger than a NATS message in pieces', async () => {
    const store = new SharedDocumentStore({ nats: clientConnection, database: 'large' });
    const counters = store.collection<Counter>(COUNTERS);
    await counters.clear();
    const text = 'x'.repeat(1000);
    const docs = Array.from({ length: 3000 }, (_, i) => ({ _id: `c${i}`, revision: 1, value: i, text }));
    expect(3000 * 1000).toBeGreaterThan(clientConnection.info?.max_payload ?? 0);
    await store.commit(docs.map((doc) => ({ collection: 'counters', upsert: doc })));
    expect(await counters.count({})).toBe(3000);
    const scanned: string[] = [];
    for await (const page of counters.scan(700)) scanned.push(...page.map((doc) => doc._id));
    expect(new Set(scanned).size).toBe(3000);
  });

  it('answers bad input with the store’s own error, and keeps serving', async () => {
    const store = new SharedDocumentStore({ nats: clientConnection, database: 'errors' });
    const counters = store.collection<Counter>(COUNTERS);
    await expect(counters.find({ value: { $nope: 1 } })).rejects.toThrow(/\$nope/);
    await expect(store.commit([{ collection: 'unknown', deleteId: 'x' }])).rejects.toThrow(/was not opened/);
    expect(await store.isReady()).toBe(true);
  });

  it('declares its collections again to a server that restarted, and finds what it had stored', async () => {
    const store = new SharedDocumentStore({ nats: clientConnection, database: 'restart' });
    const counters = store.collection<Counter>(COUNTERS);
    await counters.upsert({ _id: 'kept', revision: 1, value: 7 });
    await server.stop();
    server = serveDocumentStores({ nats: serverConnection, dataDir });
    expect(await counters.find({ value: 7 })).toEqual([{ _id: 'kept', revision: 1, value: 7 }]);
  });

  it('waits for a server that starts after the call (a service started before its store, or a store restarting)', async () => {
    await server.stop();
    const store = new SharedDocumentStore({ nats: clientConnection, database: 'late', timeoutMs: 5000 });
    const counters = store.collection<Counter>(COUNTERS);
    const written = counters.upsert({ _id: 'late', revision: 1, value: 1 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    server = serveDocumentStores({ nats: serverConnection, dataDir });
    expect(await written).toBe('inserted');
  });

  it('is not ready while no server answers', async () => {
    const store = new SharedDocumentStore({ nats: clientConnection, database: 'nobody', timeoutMs: 300 });
    await server.stop();
    try {
      expect(await store.isReady()).toBe(false);
    } finally {
      server = serveDocumentStores({ nats: serverConnection, dataDir });
    }
    expect(await store.isReady()).toBe(true);
  });
});
