import { createServer, type Server } from 'node:net';
import { ephemeralPortsStart, freePortRange } from './nats-server';

const listen = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

describe('freePortRange', () => {
  it('gives the first of that many consecutive ports, every one of which can be listened on', async () => {
    const base = await freePortRange(4);
    // Below the ports the OS gives outgoing connections, which could take one before it is listened on.
    expect(base).toBeLessThan(ephemeralPortsStart());
    const servers = await Promise.all([0, 1, 2, 3].map((i) => listen(base + i)));
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('passes over a candidate whose next port is taken, and gives up after its attempts', async () => {
    const taken = await listen(0);
    const port = (taken.address() as { port: number }).port;
    try {
      const candidates = [port - 1, port + 1];
      expect(await freePortRange(2, 2, async () => candidates.shift() as number)).toBe(port + 1);
      await expect(freePortRange(2, 3, async () => port - 1)).rejects.toThrow('no 2 consecutive free ports found in 3 attempts');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
