import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNatsServer } from './nats-binary';

export interface RunningNatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Stops the server as an outage would, keeping its JetStream store; `start()` then brings it
   * back on the same port and store (clients reconnect to the same URL).
   */
  interrupt(): Promise<void>;
  start(): Promise<void>;
  /** The server's process id while it runs (for measuring its CPU), else undefined. */
  readonly pid: number | undefined;
}

/** Binds `port` on loopback (0: one the OS chooses) and releases it: the port bound, or null when it is taken. */
function bindAndRelease(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/** A free TCP port on loopback, chosen by the OS. */
export async function freePort(): Promise<number> {
  const port = await bindAndRelease(0);
  if (port === null) throw new Error('no free port on the loopback address');
  return port;
}

/** Where the OS starts handing out ports to outgoing connections (Linux's ephemeral range). */
export function ephemeralPortsStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 1024 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const LOWEST_CHOSEN_PORT = 10_000;

/** A port at random between 10000 and the ephemeral range's start. */
async function portBelowEphemeralRange(): Promise<number> {
  return LOWEST_CHOSEN_PORT + Math.floor(Math.random() * (ephemeralPortsStart() - LOWEST_CHOSEN_PORT));
}

/**
 * The first of `count` consecutive free ports (the services' health ports are a base plus an
 * index), free when checked. They are chosen below the ephemeral range: a stack's ports are
 * listened on only as its processes start, seconds later, and a port of the ephemeral range may
 * meanwhile be given to any outgoing connection on the machine (a parallel test's), which then
 * failed an app's start with EADDRINUSE. Below it, only another test choosing the same port could.
 */
export async function freePortRange(count: number, attempts = 50, candidate: () => Promise<number> = portBelowEphemeralRange): Promise<number> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const base = await candidate();
    if (base + count > 65_536) continue;
    let free = true;
    for (let port = base; free && port < base + count; port++) free = (await bindAndRelease(port)) !== null;
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports found in ${attempts} attempts`);
}

async function waitForPort(port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`nats-server did not listen on port ${port} within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One nats-server process that can be started, stopped as an outage would (or killed), and started again. */
export interface NatsProcess {
  launch(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  halt(): Promise<void>;
  /** SIGKILL at once, as a machine or process crash. */
  kill(): Promise<void>;
  readonly pid: number | undefined;
}

/** Runs `nats-server` with these arguments; launched once its client port listens. */
export function natsProcess(args: string[], port: number, binary = findNatsServer() ?? 'nats-server', env: NodeJS.ProcessEnv = process.env): NatsProcess {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const signal = async (name: NodeJS.Signals, graceMs: number): Promise<void> => {
    const running = child as ChildProcess | null;
    if (running && running.exitCode === null) {
      running.kill(name);
      await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
      if (running.exitCode === null) running.kill('SIGKILL');
      await exited;
    }
    child = null;
  };
  return {
    async launch() {
      const started = spawn(binary, args, { stdio: 'ignore', env });
      child = started;
      exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
      started.once('error', () => undefined);
      try {
        await waitForPort(port, 10_000);
      } catch (error) {
        started.kill('SIGKILL');
        throw error;
      }
    },
    halt: () => signal('SIGTERM', 5000),
    kill: () => signal('SIGKILL', 5000),
    get pid() {
      return (child as ChildProcess | null)?.pid;
    },
  };
}

/**
 * Spawns a real `nats-server` with JetStream on a free loopback port and a throw-away store
 * directory. Tests never rely on a server already listening on 4222.
 */
/**
 * `config`: configuration text (accounts, users…) for the server; address, port and JetStream
 * come from flags. `env`: the server's environment (variables its configuration refers to).
 */
export async function startNatsServer(options: { jetstream?: boolean; binary?: string; config?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningNatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'nats-test-'));
  const args = ['-a', '127.0.0.1', '-p', String(port)];
  if (options.config !== undefined) {
    const file = join(storeDir, 'nats-server.conf');
    writeFileSync(file, options.config, { mode: 0o600 });
    args.push('-c', file);
  }
  if (options.jetstream !== false) args.push('-js', '-sd', storeDir);
  const server = natsProcess(args, port, options.binary, { ...process.env, ...options.env });
  await server.launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    async stop() {
      await server.halt();
      rmSync(storeDir, { recursive: true, force: true });
    },
    interrupt: () => server.halt(),
    start: () => server.launch(),
    get pid() {
      return server.pid;
    },
  };
}
