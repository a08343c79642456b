import { connect, type Msg, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { connectNats } from './connect-nats';

/** The socket writes a connection makes (the client's transport; what the change is about). */
function countWrites(nats: NatsConnection): jest.SpyInstance {
  return jest.spyOn((nats as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport, 'send');
}

/** Publishes `count` messages, each after an await: one microtask checkpoint's worth of work apart, as replies and acks go. */
async function publishAcrossMicrotasks(nats: NatsConnection, subject: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    nats.publish(subject, new TextEncoder().encode(String(i)));
    await Promise.resolve();
  }
}

describe('socket writes of a connection from connectNats (once per event-loop turn)', () => {
  let server: RunningNatsServer;
  let observer: NatsConnection;
  const received: string[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    observer = await connect({ servers: server.url });
    observer.subscribe('turn.>', { callback: (_error, msg: Msg) => void received.push(`${msg.subject} ${msg.string()}`) });
    observer.subscribe('turn.echo', { callback: (_error, msg: Msg) => msg.respond(msg.data) });
    await observer.flush();
  });

  afterAll(async () => {
    await observer?.close();
    await server?.stop();
  });

  afterEach(() => jest.restoreAllMocks());

  /** What the observer received on subjects starting with `prefix`, once it has `count` of them (or after 5 s). */
  async function receivedOn(prefix: string, count: number): Promise<string[]> {
    const until = Date.now() + 5000;
    const matching = () => received.filter((line) => line.startsWith(prefix));
    while (matching().length < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    return matching();
  }

  it('a plain client writes once per publish made a checkpoint apart (what the change is for)', async () => {
    const plain = await connect({ servers: server.url });
    const writes = countWrites(plain);
    await publishAcrossMicrotasks(plain, 'turn.plain', 20);
    await new Promise((resolve) => setImmediate(resolve));
    // Taken before connectNats patches the client: the same publishes, twenty writes.
    expect(writes).toHaveBeenCalledTimes(20);
    await plain.close();
  });

  it('writes what one turn queued in one write, in order', async () => {
    const nats = await connectNats(server.url, { name: 'test', timeoutMs: 2000 });
    const writes = countWrites(nats);

    await publishAcrossMicrotasks(nats, 'turn.patched', 20);
    expect(writes).not.toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveBeenCalledTimes(1);

    expect(await receivedOn('turn.patched', 20)).toEqual(Array.from({ length: 20 }, (_, i) => `turn.patched ${i}`));
    await nats.close();
  });

  it('still writes at once past the client threshold, and on flush; requests are answered', async () => {
    const nats = await connectNats(server.url, { name: 'test', timeoutMs: 2000 });
    const writes = countWrites(nats);

    nats.publish('turn.small', new TextEncoder().encode('first'));
    nats.publish('turn.large', new Uint8Array(40 * 1024));
    // Past 32 KiB queued: written inline, before the turn ends.
    expect(writes).toHaveBeenCalledTimes(1);
    nats.publish('turn.small', new TextEncoder().encode('last'));
    await nats.flush();
    expect((await receivedOn('turn.small', 2)).concat(await receivedOn('turn.large', 1)).map((line) => line.slice(0, 16))).toEqual(['turn.small first', 'turn.small last', `turn.large ${'\u0000'.repeat(5)}`]);

    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => nats.request('turn.echo', new TextEncoder().encode(`hello ${i}`), { timeout: 2000 })));
    expect(replies.map((reply) => reply.string())).toEqual(Array.from({ length: 10 }, (_, i) => `hello ${i}`));
    await nats.close();
  });
});
