/**
 * A local HTTPS webhook receiver for tests and benchmarks, on 127.0.0.1 with a throw-away
 * certificate (its PEM is written to a file to pass as NODE_EXTRA_CA_CERTS to the notifier). It
 * records every request and answers as told per path prefix: a status, a status with headers, or
 * never (a hanging endpoint).
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  atMs: number;
}

/** A status; a status with headers and/or after a delay (a slow receiver); or no answer at all. */
export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface WebhookReceiver {
  port: number;
  /** Its key and certificate: more receivers can share them (one file to trust). */
  tls: { key: string; cert: string };
  /** The certificate (PEM) file a client must trust. */
  caFile: string;
  received: ReceivedWebhook[];
  url(path: string): string;
  /** How requests whose path starts with `prefix` are answered from now on (default 200). */
  answer(prefix: string, answer: ReceiverAnswer | ((request: ReceivedWebhook) => ReceiverAnswer)): void;
  /** Resolves with the first request (already received or to come) that satisfies `predicate`. */
  waitFor(predicate: (request: ReceivedWebhook) => boolean, timeoutMs: number): Promise<ReceivedWebhook>;
  /** Called with each request as it arrives (benchmarks time deliveries with it). */
  onRequest(listener: (request: ReceivedWebhook) => void): void;
  close(): Promise<void>;
}

/** `sharing`: reuse another receiver's certificate (and its file), so one NODE_EXTRA_CA_CERTS trusts both. */
export async function startWebhookReceiver(certDir: string, sharing?: WebhookReceiver): Promise<WebhookReceiver> {
  const tls = sharing?.tls ?? (await newCertificate());
  const caFile = sharing?.caFile ?? join(certDir, 'webhook-receiver-ca.pem');
  if (!sharing) writeFileSync(caFile, tls.cert);
  const received: ReceivedWebhook[] = [];
  const answers: { prefix: string; answer: ReceiverAnswer | ((request: ReceivedWebhook) => ReceiverAnswer) }[] = [];
  const waiters: { predicate: (request: ReceivedWebhook) => boolean; resolve: (request: ReceivedWebhook) => void }[] = [];
  const listeners: ((request: ReceivedWebhook) => void)[] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer(tls, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhook: ReceivedWebhook = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), atMs: Date.now() };
      received.push(webhook);
      for (const listener of listeners) listener(webhook);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const waiter = waiters[i] as (typeof waiters)[number];
        if (waiter.predicate(webhook)) {
          waiters.splice(i, 1);
          waiter.resolve(webhook);
        }
      }
      const rule = [...answers].reverse().find((candidate) => webhook.path.startsWith(candidate.prefix));
      const answer = rule === undefined ? 200 : typeof rule.answer === 'function' ? rule.answer(webhook) : rule.answer;
      if (answer === 'hang') return;
      const { status, headers, delayMs } = typeof answer === 'number' ? { status: answer, headers: {}, delayMs: 0 } : { status: answer.status, headers: answer.headers ?? {}, delayMs: answer.delayMs ?? 0 };
      const respond = () => {
        if (response.destroyed) return;
        response.writeHead(status, { 'content-type': 'text/plain', ...headers });
        response.end(String(status));
      };
      if (delayMs > 0) setTimeout(respond, delayMs).unref();
      else respond();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    port,
    tls,
    caFile,
    received,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    answer(prefix, answer) {
      answers.push({ prefix, answer });
    },
    waitFor(predicate, timeoutMs) {
      const already = received.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching webhook within ${timeoutMs} ms (${received.length} received)`)), timeoutMs);
        waiters.push({
          predicate,
          resolve: (request) => {
            clearTimeout(timer);
            resolve(request);
          },
        });
      });
    },
    onRequest(listener) {
      listeners.push(listener);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A throw-away certificate for localhost and 127.0.0.1 (servers in tests present it; clients trust it). */
export async function newCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
