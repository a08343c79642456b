/**
 * An SMTP server on loopback for tests and benchmarks (smtp-server), keeping each message it
 * accepts parsed (mailparser): headers, text and HTML parts. It can answer a recipient with an
 * SMTP error (`refuse`), or accept connections and never answer (`silent`), as a broken server
 * would.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtEmail {
  /** The envelope recipient. */
  to: string;
  parsed: ParsedMail;
  raw: string;
  atMs: number;
}

export interface SmtpCatcher {
  url: string;
  port: number;
  received: CaughtEmail[];
  /** The SMTP error to answer a recipient with (e.g. `{ code: 451, message: 'try later' }`), or null to accept. */
  refuse: (recipient: string) => { code: number; message: string } | null;
  /** Resolves once `count` messages arrived (to `recipient` when given), or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number, recipient?: string): Promise<CaughtEmail[]>;
  close(): Promise<void>;
}

/** `parse: false` keeps each message raw (its `parsed` empty): a load test's receiving end spends nothing parsing. */
export async function startSmtpCatcher(options: { parse?: boolean } = {}): Promise<SmtpCatcher> {
  const received: CaughtEmail[] = [];
  const catcher: SmtpCatcher = {
    url: '',
    port: 0,
    received,
    refuse: () => null,
    async waitFor(count, timeoutMs, recipient) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((email) => recipient === undefined || email.to === recipient);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`${matching.length} of ${count} e-mails${recipient ? ` to ${recipient}` : ''} arrived within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => undefined,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = catcher.refuse(address.address);
      if (refusal === null) return callback();
      const error = new Error(refusal.message) as Error & { responseCode: number };
      error.responseCode = refusal.code;
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        if (options.parse === false) {
          for (const recipient of session.envelope.rcptTo) received.push({ to: recipient.address, parsed: {} as ParsedMail, raw, atMs: Date.now() });
          return callback();
        }
        simpleParser(raw).then(
          (parsed) => {
            for (const recipient of session.envelope.rcptTo) received.push({ to: recipient.address, parsed, raw, atMs: Date.now() });
            callback();
          },
          (error: unknown) => callback(error as Error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  catcher.port = port;
  catcher.url = `smtp://127.0.0.1:${port}`;
  catcher.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return catcher;
}

/** A server that accepts connections and never says a word: an SMTP server hung up. */
export async function startSilentSmtpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
