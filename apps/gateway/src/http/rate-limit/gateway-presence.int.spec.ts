import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { GatewayPresence } from './gateway-presence';

describe('GatewayPresence over NATS KV', () => {
  let server: RunningNatsServer;
  const connections: NatsConnection[] = [];
  const presences: GatewayPresence[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  });

  afterAll(async () => {
    for (const presence of presences) await presence.close();
    for (const connection of connections) await connection.close();
    await server?.stop();
  });

  async function gateway(name: string): Promise<GatewayPresence> {
    const nats = await connect({ servers: server.url });
    connections.push(nats);
    const presence = await GatewayPresence.open(nats, name);
    presences.push(presence);
    return presence;
  }

  async function until(condition: () => boolean, withinMs: number): Promise<number> {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Date.now() - started;
  }

  it('counts a gateway that starts at once on both sides, not at the next heartbeat, and forgets one that stops', async () => {
    const first = await gateway('gateway-a');
    expect(first.replicas).toBe(1);
    const second = await gateway('gateway-b');
    // The newcomer read the stored heartbeats before it opened.
    expect(second.replicas).toBe(2);
    // The heartbeat is every 3 s: being counted well within it means the watch saw the newcomer.
    expect(await until(() => first.replicas === 2, 1_000)).toBeLessThan(1_000);
    await second.close();
    await until(() => first.replicas === 1, 1_000);
    expect(first.replicas).toBe(1);
  });
});
