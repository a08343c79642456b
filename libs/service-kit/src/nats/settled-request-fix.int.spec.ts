import { ErrorCode, NatsError, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { connectNats } from './connect-nats';

/** The inbox mux's pending requests (the client's internals: what the fix must keep empty). */
const pendingRequests = (nats: NatsConnection) => (nats as unknown as { protocol: { muxSubscriptions: { size(): number } } }).protocol.muxSubscriptions.size();

describe('requests on a connection from connectNats (settled requests build no error)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
    nats = await connectNats(server.url, { name: 'test', timeoutMs: 2000 });
    nats.subscribe('test.echo', { callback: (_error, msg) => msg.respond(msg.data) });
    nats.subscribe('test.silent', { callback: () => undefined });
    await nats.flush();
  });

  afterAll(async () => {
    await nats?.close();
    await server?.stop();
  });

  afterEach(() => jest.restoreAllMocks());

  it('answers requests and JetStream publishes without constructing a NatsError, and forgets them', async () => {
    const errors = jest.spyOn(NatsError, 'errorForCode');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => nats.request('test.echo', new TextEncoder().encode(`hello ${i}`))));
    expect(replies.map((reply) => reply.string())).toEqual(Array.from({ length: 20 }, (_, i) => `hello ${i}`));

    const jsm = await nats.jetstreamManager();
    await jsm.streams.add({ name: 'FIX', subjects: ['fix.>'] });
    errors.mockClear();
    const ack = await nats.jetstream().publish('fix.one', new TextEncoder().encode('x'));
    expect(ack.seq).toBe(1);

    expect(errors).not.toHaveBeenCalled();
    expect(pendingRequests(nats)).toBe(0);
  });

  it('still rejects a request nobody answers in time with TIMEOUT, and forgets it', async () => {
    const failure = await nats.request('test.silent', new Uint8Array(), { timeout: 100 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NatsError);
    expect((failure as NatsError).code).toBe(ErrorCode.Timeout);
    expect(pendingRequests(nats)).toBe(0);
  });

  it('still rejects a request to a subject without responders with 503, and forgets it', async () => {
    const failure = await nats.request('test.nobody', new Uint8Array(), { timeout: 1000 }).catch((error: unknown) => error);
    expect((failure as NatsError).code).toBe(ErrorCode.NoResponders);
    expect(pendingRequests(nats)).toBe(0);
  });
});
