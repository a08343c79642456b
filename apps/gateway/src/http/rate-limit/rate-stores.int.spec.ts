import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import type { RatePolicy } from './gcra';
import { SharedRateStore } from './rate-stores';

const policy: RatePolicy = { requests: 60, windowMs: 60_000, burst: 10 };

describe('SharedRateStore over NATS KV', () => {
  let server: RunningNatsServer;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });

  afterAll(async () => {
    for (const connection of connections) await connection.close();
    await server?.stop();
  });

  /** A store as one gateway replica holds it: its own connection, the shared bucket. */
  async function replica(bucket: string): Promise<SharedRateStore> {
    const nats = await connect({ servers: server.url });
    connections.push(nats);
    return new SharedRateStore(await nats.jetstream().views.kv(bucket, { history: 1 }), policy);
  }

  it('given two replicas, when one key calls both concurrently, then together they allow exactly the burst', async () => {
    const [a, b] = [await replica('rl_shared'), await replica('rl_shared')];
    const now = Date.now();
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).decide('key-1', now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(policy.burst);
    // Another key has its own budget.
    expect((await a.decide('key-2', now)).allowed).toBe(true);
  });

  it('given a replica that restarts (a new store on the same bucket), then it sees what was spent', async () => {
    const first = await replica('rl_restart');
    const now = Date.now();
    for (let i = 0; i < policy.burst; i++) expect((await first.decide('key', now)).allowed).toBe(true);
    const restarted = await replica('rl_restart');
    expect((await restarted.decide('key', now)).allowed).toBe(false);
  });
});
