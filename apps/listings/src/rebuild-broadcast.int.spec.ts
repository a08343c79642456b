import { connect, type NatsConnection } from 'nats';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { RebuildBroadcast } from './rebuild-broadcast';

describe('RebuildBroadcast (real nats-server)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    nats = await connect({ servers: server.url });
  });

  afterAll(async () => {
    await nats?.close();
    await server?.stop();
  });

  it('has every replica with read models of its own rebuild, and of replicas sharing a store only the writer', async () => {
    const rebuilt: string[] = [];
    const replicas = [
      { name: 'own-1', rebuildsHere: true },
      { name: 'own-2', rebuildsHere: true },
      { name: 'shared-follower', rebuildsHere: false },
    ].map(({ name, rebuildsHere }) => {
      const broadcast = new RebuildBroadcast(nats, () => rebuildsHere, async (requestId) => void rebuilt.push(`${name}:${requestId}`));
      broadcast.start();
      return broadcast;
    });
    await nats.flush();
    (replicas[2] as RebuildBroadcast).announce('rebuild-42');
    await until(() => rebuilt.length >= 2, 3000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rebuilt.sort()).toEqual(['own-1:rebuild-42', 'own-2:rebuild-42']);
    for (const broadcast of replicas) broadcast.stop();
  });
});
