/**
 * The one way webhooks leave the service. Subscribers choose the URLs, so a delivery must not be
 * a way into what only the service can reach: the address check runs when the socket connects,
 * on the very addresses it connects to, so a name that resolved to a public address when the
 * search was saved and to a private one now (DNS rebinding) is still refused. Redirects are not
 * followed (they would be a second, unchecked target), certificates are verified, every request
 * is bounded in time and in how much of the answer is read, and no failure throws: each becomes
 * an outcome the delivery history can show.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, request, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isBlockedAddress, type PrivateTargetsAllowed } from '@immo/service-kit';

export interface PostOutcome {
  /** The receiver's status; null when none came back. */
  statusCode: number | null;
  durationMs: number;
  /** Why no status came back (refused, unresolvable, timed out, TLS...); null when one did. */
  error: string | null;
  /** The receiver's `Retry-After`, whatever the status; the caller decides when it applies. */
  retryAfterMs: number | null;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to. */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

export interface GuardedHttpsClientOptions {
  allowed: PrivateTargetsAllowed;
  /** The whole exchange: resolving, connecting, TLS, sending, and reading the answer. */
  timeoutMs: number;
  lookup?: ResolveHost;
  /** Trusted CAs instead of the default ones (tests; deployments use NODE_EXTRA_CA_CERTS). */
  ca?: string | Buffer;
}

/** The answer's body is read (so the connection can be reused) up to this much, and discarded. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Concurrent connections to one receiver: enough for a burst, not a flood. */
const MAX_SOCKETS_PER_HOST = 64;
/** Idle kept-alive connections close before the common 5 s server keep-alive does, which would reset a reused one. */
const IDLE_SOCKET_TIMEOUT_MS = 4000;

const resolveWithDns: ResolveHost = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** `new URL` keeps IPv6 literals in brackets and a fully qualified name's final dot. */
function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

const privateAddress = (address: string, host: string) => new TargetRefused(address === host ? `address ${address} is private` : `address ${address} is private (${host})`);

function requestedFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * The `lookup` the agent's sockets connect through: resolves the name, drops every address that
 * is private and not opted in, and hands Node only what is left, so the socket connects to a
 * checked address. A name with nothing left is refused before any connection is attempted.
 */
export function guardedLookup(allowed: PrivateTargetsAllowed, resolve: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    const host = bareHost(hostname);
    const fail = (error: Error) => (options.all ? callback(error, []) : callback(error, ''));
    Promise.resolve()
      .then(() => resolve(host))
      .then(
        (resolved) => {
          const family = requestedFamily(options.family);
          const candidates = resolved.filter((entry) => isIP(entry.address) !== 0 && (family === 0 || entry.family === family));
          if (candidates.length === 0) return fail(new TargetRefused(`host ${host} does not resolve`));
          const permitted = allowed.host(host) ? candidates : candidates.filter((entry) => !isBlockedAddress(entry.address) || allowed.address(entry.address));
          const [first] = permitted;
          if (first === undefined) return fail(privateAddress((candidates[0] as ResolvedAddress).address, host));
          if (options.all) callback(null, permitted satisfies LookupAddress[]);
          else callback(null, first.address, first.family);
        },
        (error: unknown) => {
          const code = (error as NodeJS.ErrnoException | null)?.code;
          fail(new TargetRefused(`host ${host} does not resolve${code ? ` (${code})` : ''}`));
        },
      );
  };
}

const CERTIFICATE_CODES = /CERT|SELF_SIGNED|UNABLE_TO_|INVALID_CA|HOSTNAME_MISMATCH|ALTNAME/;

function describeError(error: unknown, host: string): string {
  if (error instanceof TargetRefused) return error.message;
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${host}`;
    case 'ECONNRESET':
      return `connection reset by ${host}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} is unreachable (${code})`;
    case 'ETIMEDOUT':
      return `connecting to ${host} timed out`;
  }
  if (code && CERTIFICATE_CODES.test(code)) return `TLS certificate of ${host} not accepted: ${message} (${code})`;
  if (code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_')) return `TLS with ${host} failed: ${message} (${code})`;
  return code && !message.includes(code) ? `${message} (${code})` : message || String(error);
}

/** `Retry-After` as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names its month; without this, `Date.parse` reads `-5` as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export class GuardedHttpsClient {
  private readonly allowed: PrivateTargetsAllowed;
  private readonly timeoutMs: number;
  private readonly agent: Agent;

  constructor(options: GuardedHttpsClientOptions) {
    this.allowed = options.allowed;
    this.timeoutMs = options.timeoutMs;
    // The lookup sits on the agent, so no socket it opens, first or pooled, skips the check.
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_HOST,
      scheduling: 'lifo',
      timeout: IDLE_SOCKET_TIMEOUT_MS,
      lookup: guardedLookup(options.allowed, options.lookup ?? resolveWithDns),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
  }

  /** POSTs `body` to `url` once. Never throws: every failure is an outcome naming its cause. */
  async post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<PostOutcome> {
    const started = performance.now();
    const outcome = (statusCode: number | null, error: string | null, retryAfterMs: number | null = null): PostOutcome => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
      retryAfterMs,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return outcome(null, 'endpoint is not a valid URL');
    }
    if (target.protocol !== 'https:') return outcome(null, 'endpoint must be https');
    if (target.username || target.password) return outcome(null, 'endpoint must not hold credentials');
    const host = bareHost(target.hostname);
    // Node connects to an IP literal without calling `lookup`, so it is checked here.
    if (isIP(host) !== 0 && !this.allowed.host(host) && isBlockedAddress(host) && !this.allowed.address(host)) return outcome(null, privateAddress(host, host).message);
    if (signal?.aborted) return outcome(null, 'aborted');

    return new Promise<PostOutcome>((resolve) => {
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.timeoutMs);
      const onCallerAbort = () => controller.abort();
      signal?.addEventListener('abort', onCallerAbort, { once: true });
      let answer: { statusCode: number; retryAfterMs: number | null } | null = null;
      let settled = false;
      const finish = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerAbort);
        // Once the receiver has answered, a body cut short (too long, too slow) changes nothing.
        resolve(answer ? outcome(answer.statusCode, null, answer.retryAfterMs) : outcome(null, error));
      };

      const requestOptions: RequestOptions = {
        method: 'POST',
        agent: this.agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // Aborting destroys the request and its socket, whatever stage it is at.
        signal: controller.signal,
      };
      let outgoing: ReturnType<typeof request>;
      try {
        outgoing = request(target, requestOptions);
      } catch (error) {
        finish(describeError(error, host));
        return;
      }
      outgoing.on('error', (error) => finish(controller.signal.aborted ? (timedOut ? `timed out after ${this.timeoutMs} ms` : 'aborted') : describeError(error, host)));
      outgoing.on('response', (response) => {
        answer = { statusCode: response.statusCode ?? 0, retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()) };
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish(null);
          }
        });
        response.on('end', () => finish(null));
        response.on('close', () => finish(null));
        response.on('error', () => finish(null));
      });
      outgoing.end(body);
    });
  }

  /** Closes pooled connections; requests in flight are destroyed. */
  close(): void {
    this.agent.destroy();
  }
}
