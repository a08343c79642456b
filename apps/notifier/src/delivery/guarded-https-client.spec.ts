import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { PrivateTargetsAllowed, resolvedTargetViolation } from '@immo/service-kit';
import { newCertificate } from '@immo/testing';
import { GuardedHttpsClient, guardedLookup, parseRetryAfter, type ResolvedAddress, type ResolveHost } from './guarded-https-client';

// Every server listens on 127.0.0.1. Private-range addresses only ever come from fake lookups, and
// a safety net below destroys any client socket about to connect outside 127.0.0.0/8, so even a
// broken guard sends nothing to them; the tests still see it as a failure.

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, TLS or not. */
  connections: number;
  closedSockets: Promise<void>;
  close(): Promise<void>;
}

let tls: { key: string; cert: string };
const servers: TestServer[] = [];
const clients: GuardedHttpsClient[] = [];

async function startServer(respond: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let socketClosed!: () => void;
  const state: TestServer = {
    port: 0,
    requests: [],
    connections: 0,
    closedSockets: new Promise<void>((resolve) => (socketClosed = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(request, response);
    });
  });
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      socketClosed();
    });
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as { port: number }).port;
  servers.push(state);
  return state;
}

function client(options: Partial<ConstructorParameters<typeof GuardedHttpsClient>[0]> = {}): GuardedHttpsClient {
  const created = new GuardedHttpsClient({ allowed: new PrivateTargetsAllowed('127.0.0.1/32'), timeoutMs: 2000, ca: tls.cert, ...options });
  clients.push(created);
  return created;
}

/** A lookup answering from a table, as DNS would (asynchronously), recording each question. */
function fakeLookup(answers: ResolvedAddress[][]): ResolveHost & { hosts: string[] } {
  const hosts: string[] = [];
  const resolve = async (host: string) => {
    hosts.push(host);
    await delay(2);
    const answer = answers[hosts.length - 1];
    if (!answer) throw Object.assign(new Error(`unexpected lookup #${hosts.length} of ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolve, { hosts });
}

// Client-side observation of every request: what its socket was handed by the lookup, and whether
// it connected. The channel publishes once the request has its socket, before the (asynchronous)
// lookup answers, so the safety net is armed in time; `socketLookups` proves it was.
const clientRequests: ClientRequest[] = [];
const socketLookups: { error: string | null; address: string | undefined }[] = [];
const clientConnects: string[] = [];
function observeRequest(message: unknown): void {
  const request = (message as { request: ClientRequest }).request;
  clientRequests.push(request);
  const watch = (socket: Socket) => {
    socket.on('lookup', (error: Error | null, address: string | undefined) => {
      socketLookups.push({ error: error?.message ?? null, address });
      if (!error && address !== undefined && !/^(::ffff:)?127\./.test(address)) socket.destroy(new Error(`safety net: refused to connect to ${address}`));
    });
    socket.on('connect', () => clientConnects.push(socket.remoteAddress ?? '?'));
  };
  if (request.socket) watch(request.socket);
  else request.once('socket', watch);
}

beforeAll(async () => {
  tls = await newCertificate();
  subscribe('http.client.request.start', observeRequest);
});

beforeEach(() => {
  clientRequests.length = 0;
  socketLookups.length = 0;
  clientConnects.length = 0;
});

afterEach(async () => {
  for (const created of clients.splice(0)) created.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(() => {
  unsubscribe('http.client.request.start', observeRequest);
});

describe('GuardedHttpsClient', () => {
  it('delivers the body and headers intact and returns the status', async () => {
    const server = await startServer((_request, response) => response.writeHead(200).end('ok'));
    const body = JSON.stringify({ city: 'Évry-Courcouronnes', price: 245000 });

    const outcome = await client().post(`https://localhost:${server.port}/hooks/alerts?x=1`, body, {
      'content-type': 'application/json',
      'webhook-id': 'msg-1',
    });

    expect(outcome).toEqual({ statusCode: 200, durationMs: expect.any(Number), error: null, retryAfterMs: null });
    expect(socketLookups).toEqual([{ error: null, address: '127.0.0.1' }]);
    expect(clientConnects).toEqual(['127.0.0.1']);
    expect(server.requests).toEqual([
      {
        method: 'POST',
        url: '/hooks/alerts?x=1',
        headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'msg-1', 'content-length': String(Buffer.byteLength(body)) }),
        body,
      },
    ]);
  });

  it('reuses the connection for the next delivery to the same receiver', async () => {
    const server = await startServer((_request, response) => response.writeHead(204).end());
    const guarded = client();

    for (let i = 0; i < 3; i += 1) expect((await guarded.post(`https://localhost:${server.port}/`, '{}', {})).statusCode).toBe(204);

    expect(server.requests).toHaveLength(3);
    expect(server.connections).toBe(1);
  });

  it('returns a redirect as its status and does not follow it', async () => {
    const server = await startServer((request, response) => {
      if (request.url === '/') response.writeHead(302, { location: `https://localhost:${(request.socket.localPort as number).toString()}/elsewhere` }).end();
      else response.writeHead(200).end();
    });

    const outcome = await client().post(`https://localhost:${server.port}/`, '{}', {});

    expect(outcome).toMatchObject({ statusCode: 302, error: null });
    expect(server.requests.map((request) => request.url)).toEqual(['/']);
  });

  it.each([
    ['delay-seconds', () => '7', 7000, 7000],
    ['an HTTP date', () => new Date(Date.now() + 60_000).toUTCString(), 58_000, 60_000],
  ])('reads Retry-After given as %s', async (_form, retryAfter, lowest, highest) => {
    const server = await startServer((_request, response) => response.writeHead(429, { 'retry-after': retryAfter() }).end());

    const outcome = await client().post(`https://localhost:${server.port}/`, '{}', {});

    expect(outcome.statusCode).toBe(429);
    expect(outcome.retryAfterMs).toBeGreaterThanOrEqual(lowest);
    expect(outcome.retryAfterMs).toBeLessThanOrEqual(highest);
  });

  it('reads Retry-After whatever the status', async () => {
    const server = await startServer((_request, response) => response.writeHead(200, { 'retry-after': '3' }).end());

    expect(await client().post(`https://localhost:${server.port}/`, '{}', {})).toMatchObject({ statusCode: 200, retryAfterMs: 3000 });
  });

  it('stops reading a long answer after 64 KiB and still reports its status', async () => {
    let written = 0;
    const server = await startServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      // Endless: only the client giving up on the body ends this exchange.
      const write = () => {
        let room = true;
        while (room && !response.destroyed) {
          room = response.write(chunk);
          written += chunk.length;
        }
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    });

    const outcome = await client({ timeoutMs: 5000 }).post(`https://localhost:${server.port}/`, '{}', {});

    expect(outcome).toMatchObject({ statusCode: 200, error: null });
    expect(outcome.durationMs).toBeLessThan(2000);
    expect(written).toBeGreaterThan(64 * 1024);
    await server.closedSockets;
  });

  it('times out a receiver that never answers and closes the connection', async () => {
    const server = await startServer(() => undefined);

    const outcome = await client({ timeoutMs: 300 }).post(`https://localhost:${server.port}/`, '{}', {});

    expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
    // Unreferenced: the losing timer must not keep the test process alive after the last test.
    await expect(Promise.race([server.closedSockets.then(() => 'closed'), delay(1000, 'still open', { ref: false })])).resolves.toBe('closed');
  });

  it("stops when the caller's signal aborts", async () => {
    const server = await startServer(() => undefined);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);

    const outcome = await client({ timeoutMs: 5000 }).post(`https://localhost:${server.port}/`, '{}', {}, caller.signal);

    expect(outcome).toMatchObject({ statusCode: null, error: 'aborted' });
    expect(outcome.durationMs).toBeLessThan(1000);
    await server.closedSockets;
  });

  it('refuses an http:// endpoint without sending anything', async () => {
    const server = await startServer((_request, response) => response.writeHead(200).end());

    const outcome = await client().post(`http://localhost:${server.port}/`, '{}', {});

    expect(outcome).toMatchObject({ statusCode: null, error: 'endpoint must be https' });
    expect(clientRequests).toHaveLength(0);
    expect(server.connections).toBe(0);
  });

  it('refuses a receiver whose certificate is not trusted', async () => {
    const server = await startServer((_request, response) => response.writeHead(200).end());

    const outcome = await client({ ca: undefined }).post(`https://localhost:${server.port}/`, '{}', {});

    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/certificate/i);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a certificate that does not name the host', async () => {
    const server = await startServer((_request, response) => response.writeHead(200).end());

    const outcome = await client({ allowed: new PrivateTargetsAllowed('127.0.0.1/32'), lookup: fakeLookup([[{ address: '127.0.0.1', family: 4 }]]) }).post(
      `https://hooks.test:${server.port}/`,
      '{}',
      {},
    );

    expect(outcome.error).toMatch(/certificate of hooks\.test not accepted/);
    expect(server.requests).toHaveLength(0);
  });

  it('reports a refused connection', async () => {
    const server = await startServer(() => undefined);
    const port = server.port;
    await server.close();

    expect(await client().post(`https://localhost:${port}/`, '{}', {})).toMatchObject({ statusCode: null, error: 'connection refused by localhost' });
  });

  it('reports a name that does not resolve', async () => {
    const outcome = await client({ lookup: fakeLookup([]) }).post('https://nowhere.test/', '{}', {});

    expect(outcome).toMatchObject({ statusCode: null, error: 'host nowhere.test does not resolve (ENOTFOUND)' });
    expect(clientConnects).toHaveLength(0);
  });

  describe('private targets', () => {
    it('refuses localhost (127.0.0.1) when it is not opted in', async () => {
      const server = await startServer((_request, response) => response.writeHead(200).end());

      const outcome = await client({ allowed: new PrivateTargetsAllowed(undefined) }).post(`https://localhost:${server.port}/`, '{}', {});

      expect(outcome).toMatchObject({ statusCode: null, error: 'address 127.0.0.1 is private (localhost)' });
      expect(socketLookups).toEqual([{ error: 'address 127.0.0.1 is private (localhost)', address: undefined }]);
      expect(server.connections).toBe(0);
      expect(clientConnects).toHaveLength(0);
    });

    it('accepts localhost when 127.0.0.1/32 is opted in', async () => {
      const server = await startServer((_request, response) => response.writeHead(200).end());

      const outcome = await client({ allowed: new PrivateTargetsAllowed('127.0.0.1/32') }).post(`https://localhost:${server.port}/`, '{}', {});

      expect(outcome).toMatchObject({ statusCode: 200, error: null });
      expect(server.requests).toHaveLength(1);
    });

    it('accepts a host name opted in, wherever it resolves', async () => {
      const server = await startServer((_request, response) => response.writeHead(200).end());

      const outcome = await client({ allowed: new PrivateTargetsAllowed('localhost') }).post(`https://localhost:${server.port}/`, '{}', {});

      expect(outcome).toMatchObject({ statusCode: 200, error: null });
    });

    it('refuses an IP literal before any request, and accepts it once opted in', async () => {
      const server = await startServer((_request, response) => response.writeHead(200).end());

      const refused = await client({ allowed: new PrivateTargetsAllowed(undefined) }).post(`https://127.0.0.1:${server.port}/`, '{}', {});
      expect(refused).toMatchObject({ statusCode: null, error: 'address 127.0.0.1 is private' });
      expect(clientRequests).toHaveLength(0);
      expect(server.connections).toBe(0);

      const accepted = await client({ allowed: new PrivateTargetsAllowed('127.0.0.1/32') }).post(`https://127.0.0.1:${server.port}/`, '{}', {});
      expect(accepted).toMatchObject({ statusCode: 200, error: null });
    });

    // Loopback only: Node connects to an IP literal without a lookup, so no safety net could stop a regression here.
    it.each(['[::ffff:127.0.0.1]', '127.1.2.3', '[::1]'])('refuses the IP literal %s before any request', async (literal) => {
      const server = await startServer((_request, response) => response.writeHead(200).end());

      const outcome = await client({ allowed: new PrivateTargetsAllowed(undefined) }).post(`https://${literal}:${server.port}/`, '{}', {});

      expect(outcome).toMatchObject({ statusCode: null, error: expect.stringMatching(/^address \S+ is private$/) });
      expect(clientRequests).toHaveLength(0);
      expect(server.connections).toBe(0);
    });

    it.each([
      ['10.1.2.3', 4],
      ['172.20.0.1', 4],
      ['192.168.1.1', 4],
      ['169.254.169.254', 4],
      ['fd00::1', 6],
      ['::ffff:10.0.0.1', 6],
    ] as const)('refuses a name resolving to %s at connect time, before connecting', async (address, family) => {
      const lookup = fakeLookup([[{ address, family }]]);

      const outcome = await client({ allowed: new PrivateTargetsAllowed(undefined), lookup }).post('https://hooks.example.com/h', '{}', {});

      expect(outcome).toMatchObject({ statusCode: null, error: `address ${address} is private (hooks.example.com)` });
      expect(lookup.hosts).toEqual(['hooks.example.com']);
      expect(socketLookups).toEqual([{ error: `address ${address} is private (hooks.example.com)`, address: undefined }]);
      expect(clientConnects).toHaveLength(0);
    });

    it('refuses a name rebound to a private address after it was checked at creation', async () => {
      const server = await startServer((_request, response) => response.writeHead(200).end());
      // The documentation range 192.0.2.0/24 is public to the guard and routed nowhere.
      const lookup = fakeLookup([[{ address: '192.0.2.10', family: 4 }], [{ address: '127.0.0.1', family: 4 }]]);
      const url = `https://rebind.test:${server.port}/`;
      const nothingAllowed = new PrivateTargetsAllowed(undefined);
      expect(await resolvedTargetViolation(url, nothingAllowed, async (host) => (await lookup(host)).map((entry) => entry.address))).toBeNull();

      const outcome = await client({ allowed: nothingAllowed, lookup }).post(url, '{}', {});

      expect(outcome).toMatchObject({ statusCode: null, error: 'address 127.0.0.1 is private (rebind.test)' });
      expect(lookup.hosts).toEqual(['rebind.test', 'rebind.test']);
      expect(socketLookups).toEqual([{ error: 'address 127.0.0.1 is private (rebind.test)', address: undefined }]);
      expect(server.connections).toBe(0);
      expect(clientConnects).toHaveLength(0);
    });
  });
});

describe('guardedLookup', () => {
  const nothingAllowed = new PrivateTargetsAllowed(undefined);
  const lookupWith = (allowed: PrivateTargetsAllowed, answer: ResolvedAddress[], options: { all?: boolean; family?: number } = { all: true }) =>
    new Promise<{ error: Error | null; address: unknown; family: number | undefined }>((resolve) =>
      guardedLookup(allowed, async () => answer)('hooks.example.com', options, (error, address, family) => resolve({ error, address, family })),
    );

  it('hands on only the public addresses of a name that also resolves to private ones', async () => {
    const result = await lookupWith(nothingAllowed, [
      { address: '10.0.0.7', family: 4 },
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::7', family: 6 },
      { address: '2606:2800:220:1::', family: 6 },
    ]);

    expect(result).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::', family: 6 },
      ],
      family: undefined,
    });
  });

  it('answers with one address when Node asks for one, in the family it asks for', async () => {
    const answer: ResolvedAddress[] = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::', family: 6 },
    ];

    expect(await lookupWith(nothingAllowed, answer, {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookupWith(nothingAllowed, answer, { family: 6 })).toEqual({ error: null, address: '2606:2800:220:1::', family: 6 });
  });

  it('refuses a name resolving only to private addresses, naming the first', async () => {
    const result = await lookupWith(nothingAllowed, [
      { address: '10.0.0.7', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);

    expect(result.error?.message).toBe('address 10.0.0.7 is private (hooks.example.com)');
    expect(result.address).toEqual([]);
  });

  it('hands on private addresses that are opted in', async () => {
    const result = await lookupWith(new PrivateTargetsAllowed('10.0.0.0/8'), [
      { address: '10.0.0.7', family: 4 },
      { address: '192.168.0.7', family: 4 },
    ]);

    expect(result).toMatchObject({ error: null, address: [{ address: '10.0.0.7', family: 4 }] });
  });

  it('refuses a name with no address', async () => {
    expect((await lookupWith(nothingAllowed, [])).error?.message).toBe('host hooks.example.com does not resolve');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');

  it.each([
    [undefined, null],
    ['', null],
    ['0', 0],
    ['120', 120_000],
    ['Sun, 01 Jun 2025 12:01:30 GMT', 90_000],
    ['Sun, 01 Jun 2025 11:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
  ])('reads %j as %j ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
