import { existsSync } from 'node:fs';
import { startNatsServer } from './nats-server';

describe('startNatsServer', () => {
  it("names the running server's process (for measuring its CPU), and none while it is stopped", async () => {
    const server = await startNatsServer({ jetstream: false });
    try {
      const first = server.pid;
      expect(first).toEqual(expect.any(Number));
      expect(existsSync(`/proc/${first}`)).toBe(true);

      await server.interrupt();
      expect(server.pid).toBeUndefined();

      await server.start();
      expect(server.pid).toEqual(expect.any(Number));
      expect(server.pid).not.toBe(first);
    } finally {
      await server.stop();
    }
    expect(server.pid).toBeUndefined();
  });
});
