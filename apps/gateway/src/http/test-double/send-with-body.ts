import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createConnection } from 'node:net';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** From sending the request to the last byte of the answer. */
  elapsedMs: number;
}

/**
 * Sends a request and its body on a connection of its own, and resolves with the answer once it
 * is complete, whether the server read the body or not. The connection is a keep-alive one, as
 * browsers and `fetch` use: one the client asks to close (Node's `agent: false`) is closed by the
 * server right after an early answer, and the upload still under way may then fail before the
 * answer is read. An error on the sending side after the answer came is not a failure here.
 */
export function sendWithBody(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: Buffer | string): Promise<Answer> {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Answer>((resolve, reject) => {
    const started = performance.now();
    let answered = false;
    const req = request(
      new URL(path, baseUrl),
      { method, agent, headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers } },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), elapsedMs: performance.now() - started }));
        res.on('error', reject);
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(payload);
  }).finally(() => agent.destroy());
}

/** Not JSON however it is read: `{"title":"xxx…` never closed. */
export function malformedJson(bytes: number): Buffer {
  const body = Buffer.alloc(bytes, 'x');
  body.write('{"title":"');
  return body;
}

export interface AnswerToAnnouncedBody {
  status: number;
  body: string;
  /** Whether the server closed the connection (within `waitMs`), having sent its answer. */
  closed: boolean;
}

/**
 * Sends the head of a request announcing a body of `contentLength` bytes, and only `sent` of it,
 * then collects what the server answers until it closes the connection or `waitMs` passes: what
 * a server does with a body it has not received (refuses it at once, or waits for it).
 */
export function announceBody(baseUrl: string, method: string, path: string, headers: Record<string, string>, contentLength: number, sent: string, waitMs = 2000): Promise<AnswerToAnnouncedBody> {
  const { hostname, port } = new URL(baseUrl);
  const head = Object.entries({ host: hostname, 'content-type': 'application/json', ...headers, 'content-length': String(contentLength) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve) => {
    const socket = createConnection(Number(port), hostname);
    let received = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [statusLine = '', ...rest] = received.split('\r\n');
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), body: rest.join('\r\n').split('\r\n\r\n').slice(1).join('\r\n\r\n'), closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
    socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${sent}`);
  });
}
