import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import type { Caller, SearchRelations } from '@immo/contracts';
import { EmbeddedDocumentStore } from '@immo/document-store';
import { JetStreamEventStore } from '@immo/event-store';
import { PrivateTargetsAllowed, type NatsRpcClient } from '@immo/service-kit';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { CommandRejected } from '../command-rejected';
import { AlertRecords } from '../matching/alert-records';
import { PlaceRelations } from '../places/place-relations';
import { SearchesProjection } from '../projection/searches-projection';
import { AccountCreationLocks } from './account-creation-locks';
import { IDEMPOTENCY_WINDOW_MS, SearchesService } from './searches.service';

/** No place is named in these searches: the geo service is never asked. */
class NoPlaces extends PlaceRelations {
  constructor() {
    super(null as unknown as NatsRpcClient);
  }
  override async resolve(): Promise<{ ok: true; relations: SearchRelations }> {
    return { ok: true, relations: { includedCities: [], excludedCities: [], includedDepartments: [] } };
  }
}

const body = (title: string) => ({ title, transactionType: 0, propertyTypes: [0], budgetMax: 300_000 });

async function rejection(promise: Promise<unknown>): Promise<CommandRejected> {
  const error = await promise.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(CommandRejected);
  return error as CommandRejected;
}

describe('SearchesService commands (real JetStream event store)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  let eventStore: JetStreamEventStore;
  let store: EmbeddedDocumentStore;
  let projection: SearchesProjection;
  let nowMs: number;
  let searches: SearchesService;

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
    eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'SEARCHES_COMMANDS_TEST', subjectPrefix: 'es.searches-commands-test' });
    store = new EmbeddedDocumentStore();
    projection = new SearchesProjection(eventStore, store);
    await projection.start();
    nowMs = Date.parse('2026-11-28T10:00:00.000Z');
    searches = new SearchesService(eventStore, projection, new NoPlaces(), new AlertRecords(store), {
      maxSearchesPerAccount: 100,
      allowed: new PrivateTargetsAllowed(''),
      now: () => new Date(nowMs),
    });
  });

  afterAll(async () => {
    await projection?.stop();
    await store?.close();
    await eventStore?.close();
    await nats?.drain();
    await server?.stop();
  });

  afterEach(() => jest.restoreAllMocks());

  const newCaller = (): Caller => ({ accountId: randomUUID() });
  const countOf = (caller: Caller) => projection.searches.count({ accountId: caller.accountId });

  it('answers a creation with the search its stream holds when the read model has not caught up within the wait, and the search is then readable', async () => {
    const caller = newCaller();
    jest.spyOn(projection, 'waitFor').mockResolvedValueOnce(false);
    const record = await searches.create(caller, body('Pendant le retard'), null);
    expect(record).toMatchObject({ title: 'Pendant le retard', budgetMax: 300_000, user: `/users/${caller.accountId}` });
    jest.restoreAllMocks();
    await projection.waitFor(Number.MAX_SAFE_INTEGER, 300);
    expect((await searches.get(caller, record.id)).id).toBe(record.id);
  });

  it('answers an update with the stream state too, whatever the read model holds yet', async () => {
    const caller = newCaller();
    const created = await searches.create(caller, body('Avant'), null);
    jest.spyOn(projection, 'waitFor').mockResolvedValueOnce(false);
    expect(await searches.update(caller, created.id, body('Après'), null)).toMatchObject({ id: created.id, title: 'Après' });
  });

  describe('with an Idempotency-Key', () => {
    it('answers a retry with the search the first request created, and creates one search', async () => {
      const caller = newCaller();
      const first = await searches.create(caller, body('Une fois'), 'app', 'retry-1');
      const again = await searches.create(caller, body('Une fois'), 'app', 'retry-1');
      expect(again.id).toBe(first.id);
      expect(again).toEqual(first);
      expect(await countOf(caller)).toBe(1);
    });

    it('creates one search when the same key is sent twice at once', async () => {
      const caller = newCaller();
      const [a, b] = await Promise.all([searches.create(caller, body('En même temps'), null, 'race-1'), searches.create(caller, body('En même temps'), null, 'race-1')]);
      expect(a.id).toBe(b.id);
      expect(await countOf(caller)).toBe(1);
    });

    it('refuses the same key with another body (409 naming Idempotency-Key), and stores nothing for it', async () => {
      const caller = newCaller();
      await searches.create(caller, body('Premier corps'), null, 'reused');
      const refused = await rejection(searches.create(caller, body('Autre corps'), null, 'reused'));
      expect(refused.payload).toMatchObject({ status: 409, violations: [{ propertyPath: 'Idempotency-Key' }] });
      expect(await countOf(caller)).toBe(1);
    });

    it("keeps accounts apart: another account's same key creates its own search", async () => {
      const [one, other] = [newCaller(), newCaller()];
      const a = await searches.create(one, body('Compte A'), null, 'shared-key');
      const b = await searches.create(other, body('Compte A'), null, 'shared-key');
      expect(a.id).not.toBe(b.id);
    });

    it('creates a new search for a key older than 24 hours', async () => {
      const caller = newCaller();
      const first = await searches.create(caller, body('Hier'), null, 'daily');
      nowMs += IDEMPOTENCY_WINDOW_MS + 1;
      const later = await searches.create(caller, body('Hier'), null, 'daily');
      expect(later.id).not.toBe(first.id);
      expect(await countOf(caller)).toBe(2);
    });
  });
});

describe('the per-account search limit with two replicas', () => {
  it('holds when creations of one account reach two replicas at once, each with its own read models', async () => {
    const server = await startNatsServer();
    const nats = await connect({ servers: server.url });
    const eventStore = await JetStreamEventStore.connect({ servers: nats, streamName: 'SEARCHES_LIMIT_TEST', subjectPrefix: 'es.searches-limit-test' });
    const replicas = await Promise.all(
      ['searches-1', 'searches-2'].map(async (name) => {
        const store = new EmbeddedDocumentStore();
        const projection = new SearchesProjection(eventStore, store);
        await projection.start();
        const service = new SearchesService(eventStore, projection, new NoPlaces(), new AlertRecords(store), {
          maxSearchesPerAccount: 3,
          allowed: new PrivateTargetsAllowed(''),
          creations: await AccountCreationLocks.open(nats, name),
        });
        return { store, projection, service };
      }),
    );
    try {
      const caller: Caller = { accountId: randomUUID() };
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (replicas[i % 2] as (typeof replicas)[number]).service.create(caller, body(`Réplique ${i}`), null)),
      );
      const created = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(created).toHaveLength(3);
      expect(refused).toHaveLength(7);
      for (const reason of refused) expect(reason).toBeInstanceOf(CommandRejected);
      for (const { projection } of replicas) {
        expect(await projection.waitFor((await eventStore.headPosition()) as number, 5000)).toBe(true);
        expect(await projection.searches.count({ accountId: caller.accountId })).toBe(3);
      }
    } finally {
      for (const { projection, store } of replicas) {
        await projection.stop();
        await store.close();
      }
      await eventStore.close();
      await nats.drain();
      await server.stop();
    }
  }, 30_000);

  it('frees the lock of a holder that died once the bucket forgets it', async () => {
    const server = await startNatsServer();
    const nats = await connect({ servers: server.url });
    try {
      const dead = await AccountCreationLocks.open(nats, 'dead', { ttlMs: 1000 });
      const alive = await AccountCreationLocks.open(nats, 'alive', { ttlMs: 1000 });
      // The dead holder took the lock and never gave it back.
      let release: () => void = () => undefined;
      void dead.run('account', () => new Promise<void>((resolve) => (release = resolve)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      expect(await alive.run('account', async () => 'ran')).toBe('ran');
      expect(Date.now() - started).toBeGreaterThan(700);
      release();
    } finally {
      await nats.drain();
      await server.stop();
    }
  }, 15_000);
});
