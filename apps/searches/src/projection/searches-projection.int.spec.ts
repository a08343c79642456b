import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { SEARCHES_SUBJECTS, type Caller, type IssuedKeyIdsPage, type KeyIssuedMessage, type SearchRelations } from '@immo/contracts';
import { EmbeddedDocumentStore, type CommitOptions, type CommitOutcome, type DocumentStore, type DocumentWrite } from '@immo/document-store';
import { JetStreamEventStore } from '@immo/event-store';
import { PrivateTargetsAllowed, type NatsRpcClient } from '@immo/service-kit';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { AccountsService } from '../accounts/accounts.service';
import { KeyAnnouncements } from '../accounts/key-announcements';
import { AlertRecords } from '../matching/alert-records';
import { PlaceRelations } from '../places/place-relations';
import { SearchesService } from '../searches/searches.service';
import { SearchesProjection } from './searches-projection';
import { ACCOUNTS_COLLECTION, CHECKPOINTS_COLLECTION, KEYS_COLLECTION, SEARCHES_COLLECTION } from './read-models';

/** No place is named in these searches: the geo service is never asked. */
class NoPlaces extends PlaceRelations {
  constructor() {
    super(null as unknown as NatsRpcClient);
  }
  override async resolve(): Promise<{ ok: true; relations: SearchRelations }> {
    return { ok: true, relations: { includedCities: [], excludedCities: [], includedDepartments: [] } };
  }
}

async function readModels(store: DocumentStore): Promise<unknown[]> {
  return Promise.all([ACCOUNTS_COLLECTION, KEYS_COLLECTION, SEARCHES_COLLECTION].map((spec) => store.collection(spec).find({}, { sort: { _id: 1 } })));
}

/** Read models without the positions documents were written at: a rebuild writes the same documents at the same positions. */
describe('searches projection (real JetStream, LMDB read models)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  const dirs: string[] = [];
  const openStore = () => {
    const dir = mkdtempSync(join(tmpdir(), 'searches-rm-'));
    dirs.push(dir);
    return { dir, store: new EmbeddedDocumentStore({ dataDir: dir }) };
  };

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'SEARCHES_TEST', subjectPrefix: 'es.searches-test' });
  });

  afterAll(async () => {
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('rebuilds read models equal to the ones kept up live, and a restart replays nothing twice', async () => {
    const { dir, store } = openStore();
    const projection = new SearchesProjection(eventStore, store);
    await projection.start();
    const accounts = new AccountsService(eventStore, projection);
    const searches = new SearchesService(eventStore, projection, new NoPlaces(), new AlertRecords(store), { maxSearchesPerAccount: 100, allowed: new PrivateTargetsAllowed('hooks.test') });

    const first = await accounts.create('Première');
    const second = await accounts.create('Seconde');
    const rotated = await accounts.issueKey(first.id);
    await accounts.revokeKey(first.id, first.keyId);
    const callers: Caller[] = [{ accountId: first.id }, { accountId: second.id }];
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const caller = callers[i % 2] as Caller;
      const record = await searches.create(
        caller,
        { title: `Recherche ${i}`, transactionType: i % 2, propertyTypes: [i % 3], budgetMax: 100_000 + i * 10_000, notificationEnabled: i % 3 === 0, endpointRecipient: 'https://hooks.test/m' },
        i % 4 === 0 ? 'app' : null,
      );
      ids.push(record.id);
    }
    // Concurrent commands: their events reach the projection together and share commits.
    await Promise.all([
      ...ids.slice(3, 11).map((id, i) => searches.update(callers[(i + 3) % 2] as Caller, id, { title: `En parallèle ${i}`, transactionType: 0, propertyTypes: [0] }, null)),
      ...Array.from({ length: 6 }, (_, i) => accounts.create(`Concurrent ${i}`)),
    ]);
    await searches.update(callers[0] as Caller, ids[0] as string, { title: 'Modifiée', transactionType: 1, propertyTypes: [1] }, null);
    await searches.delete(callers[1] as Caller, ids[1] as string);
    const token = (await searches.get(callers[0] as Caller, ids[2] as string)).token;
    expect(await searches.disableNotifications(token, 'trop', null)).toBe(true);

    const live = await readModels(store);
    expect((live[1] as { _id: string; revokedAt: string | null }[]).find((key) => key._id === first.keyId)?.revokedAt).not.toBeNull();
    expect(await accounts.keyHolder(rotated.keyId)).toMatchObject({ accountId: first.id });
    expect(await accounts.keyHolder(first.keyId)).toBeNull();

    await projection.rebuild();
    const head = (await eventStore.headPosition()) as number;
    expect(await projection.waitFor(head, 10_000)).toBe(true);
    expect(await readModels(store)).toEqual(live);

    // A fresh process on the same data: it resumes after its checkpoint and the models stay equal.
    await projection.stop();
    await store.close();
    const reopened = new EmbeddedDocumentStore({ dataDir: dir });
    const again = new SearchesProjection(eventStore, reopened);
    await again.start();
    expect(again.checkpoint).toBe(head);
    expect(again.caughtUp()).toBe(true);
    expect(await readModels(reopened)).toEqual(live);
    await again.stop();
    await reopened.close();

    // A store rebuilt from nothing by another process gives the same documents too.
    const { store: elsewhere } = openStore();
    const fresh = new SearchesProjection(eventStore, elsewhere);
    await fresh.start();
    expect(await fresh.waitFor(head, 10_000)).toBe(true);
    expect(await readModels(elsewhere)).toEqual(live);
    await fresh.stop();
    await elsewhere.close();
  }, 60_000);

  it('answers a command only once its change is readable (read your writes)', async () => {
    const { store } = openStore();
    const projection = new SearchesProjection(eventStore, store);
    await projection.start();
    const accounts = new AccountsService(eventStore, projection);
    const created = await accounts.create('Lecture');
    expect(await accounts.keyHolder(created.keyId)).toMatchObject({ accountId: created.id });
    const listed = await accounts.list(1);
    expect(listed.items.map((account) => account.id)).toContain(created.id);
    await projection.stop();
    await store.close();
  });

  it('broadcasts each issued key id before the command is answered, and pages every issued id (revoked ones too) in order', async () => {
    const { store } = openStore();
    const projection = new SearchesProjection(eventStore, store);
    const announcements = new KeyAnnouncements(nats);
    projection.onCommitted((event) => announcements.announce(event));
    await projection.start();
    const accounts = new AccountsService(eventStore, projection, { announced: () => announcements.delivered() });
    // A gateway's connection: what it holds once its own round trip to the server is back.
    const gateway = await connect({ servers: server.url });
    const heard: string[] = [];
    gateway.subscribe(SEARCHES_SUBJECTS.keyIssued, { callback: (_error, message) => heard.push((JSON.parse(message.string()) as KeyIssuedMessage).keyId) });
    await gateway.flush();

    const created = await accounts.create('Annoncée');
    await gateway.flush();
    expect(heard).toContain(created.keyId);
    const rotated = await accounts.issueKey(created.id);
    await gateway.flush();
    expect(heard).toContain(rotated.keyId);
    await accounts.revokeKey(created.id, created.keyId);

    const pages: IssuedKeyIdsPage[] = [await accounts.issuedKeyIds(null, 2)];
    for (let last = pages[0] as IssuedKeyIdsPage; last.next !== null; last = pages[pages.length - 1] as IssuedKeyIdsPage) pages.push(await accounts.issuedKeyIds(last.next, 2));
    const all = pages.flatMap((page) => page.keyIds);
    expect(all).toEqual([...all].sort());
    expect(all).toEqual(expect.arrayContaining([created.keyId, rotated.keyId]));
    expect(pages.slice(0, -1).every((page) => page.keyIds.length === 2)).toBe(true);
    await gateway.drain();
    await projection.stop();
    await store.close();
  });

  it('answers a command that issues a key only once its broadcast is delivered', async () => {
    const { store } = openStore();
    const projection = new SearchesProjection(eventStore, store);
    await projection.start();
    const held: (() => void)[] = [];
    const accounts = new AccountsService(eventStore, projection, { announced: () => new Promise<void>((resolve) => held.push(resolve)) });
    for (const issue of [() => accounts.create('Retenue'), async () => accounts.issueKey((await accounts.list(1)).items[0]?.id as string)]) {
      let answered = false;
      const issuing = issue().then(() => (answered = true));
      await until(() => held.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      held.shift()?.();
      await issuing;
    }
    await projection.stop();
    await store.close();
  });

  it('drops its read models and replays the log when they are ahead of it (the log lost its tail in a machine crash), so the appends that reuse those positions are applied', async () => {
    const streamName = 'SEARCHES_LOST_TAIL';
    const connectLog = () => JetStreamEventStore.connect({ servers: nats, streamName, subjectPrefix: 'es.searches-lost-tail' });
    const { store } = openStore();
    let log = await connectLog();
    const before = new SearchesProjection(log, store);
    await before.start();
    const lost = [await new AccountsService(log, before).create('Perdu 1'), await new AccountsService(log, before).create('Perdu 2')];
    await before.stop();

    // The machine crashed before the broker's files held those events: the stream starts over.
    await (await nats.jetstreamManager()).streams.delete(streamName);
    await log.close();
    log = await connectLog();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const after = new SearchesProjection(log, store);
    await after.start();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('read models are ahead of the event log'));
    warn.mockRestore();
    const accounts = new AccountsService(log, after);
    const created = await accounts.create('Nouveau');
    const listed = (await accounts.list(1)).items.map((account) => account.id);
    expect(listed).toContain(created.id);
    for (const account of lost) expect(listed).not.toContain(account.id);
    await after.stop();
    await log.close();
    await store.close();
  });

  it('lets one replica commit each stretch of the log when two share a store, and the other follows what was committed', async () => {
    const { store } = openStore();
    // Every commit that went through, with its checkpoint's outcome: a second writer shows as a stale checkpoint.
    const checkpointOutcomes: CommitOutcome[] = [];
    const replicaStore = (delayMs: number): DocumentStore =>
      new Proxy(store, {
        get(target, property) {
          if (property !== 'commit') return Reflect.get(target, property, target) as unknown;
          return async (writes: readonly DocumentWrite[], options?: CommitOptions) => {
            if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
            const outcomes = await target.commit(writes, options);
            const at = writes.findIndex((write) => write.collection === CHECKPOINTS_COLLECTION.name);
            if (at >= 0) checkpointOutcomes.push(outcomes[at] as CommitOutcome);
            return outcomes;
          };
        },
      });
    const heard = (projection: SearchesProjection) => {
      const seen = new Map<string, { revision: number; deleted: boolean }>();
      projection.onSearchCommitted((id, doc, position) => {
        const known = seen.get(id);
        if (known === undefined || known.revision <= position) seen.set(id, { revision: doc?.revision ?? position, deleted: doc === null });
      });
      return seen;
    };
    const fast = new SearchesProjection(eventStore, replicaStore(0));
    const slow = new SearchesProjection(eventStore, replicaStore(150));
    const fastHeard = heard(fast);
    const slowHeard = heard(slow);
    await fast.start();
    await slow.start();
    const accounts = new AccountsService(eventStore, fast);
    const searches = new SearchesService(eventStore, fast, new NoPlaces(), new AlertRecords(store), { maxSearchesPerAccount: 100, allowed: new PrivateTargetsAllowed('hooks.test') });
    const caller: Caller = { accountId: (await accounts.create('Deux répliques')).id };
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await searches.create(caller, { title: `Réplique ${i}`, transactionType: 0, propertyTypes: [0] }, null)).id);
    for (const id of ids.slice(0, 4)) await searches.update(caller, id, { title: `Modifiée ${id}`, transactionType: 1, propertyTypes: [1] }, null);
    for (const id of ids.slice(4, 6)) await searches.delete(caller, id);
    const head = (await eventStore.headPosition()) as number;
    expect(await fast.waitFor(head, 10_000)).toBe(true);
    expect(await slow.waitFor(head, 20_000)).toBe(true);

    // One writer per stretch: no commit went through with a checkpoint that was not newer.
    expect(checkpointOutcomes.length).toBeGreaterThan(0);
    expect(checkpointOutcomes.filter((outcome) => outcome === 'stale')).toEqual([]);
    // Both replicas' in-memory view is what the store holds.
    const stored = new Map((await store.collection(SEARCHES_COLLECTION).find({ _id: { $in: ids } })).map((doc) => [doc._id, doc.revision]));
    expect(stored.size).toBe(6);
    for (const seen of [fastHeard, slowHeard]) {
      for (const id of ids) {
        const entry = seen.get(id);
        expect({ id, revision: entry?.deleted ? null : entry?.revision }).toEqual({ id, revision: stored.get(id) ?? null });
      }
    }
    await slow.stop();
    await fast.stop();
    await store.close();
  }, 60_000);
});
