import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as tcpConnect } from 'node:net';
import { join, resolve } from 'node:path';
import { newApiKey } from '@immo/contracts';
import { findNatsServer, freePort, freePortRange } from '@immo/testing';

/**
 * Node flags per app. Listings holds the grouping index, skeletons and caches of 200,000 properties
 * (about 650 MB live); left alone, V8 lets its heap grow to 2 GB under ingestion before collecting.
 * The cap keeps the process within its memory budget at the cost of more frequent collections.
 * Its semi-spaces stay at 16 MB: each scavenge then pauses the event loop for less than 35 ms.
 * With 64 MB ones (once chosen so that more of a query's garbage dies young) scavenges took up to
 * 85 ms and ran back to back under ingestion, and the worst event-loop stall during a recrawl at
 * 340,000 properties was 130–280 ms instead of 77–83; listings' CPU per query was no lower with
 * them any more (measured under the query mix on the same store).
 *
 * The gateway's live heap is small (about 57 MB) and it allocates fast under load. V8 sized its old
 * generation's limit only about one semi-space above that, and starts marking once the room left
 * is under a semi-space: it ran a full mark-compact about five times a second, back to back
 * (`--trace-incremental-marking`: "Start (task) 57MB / 72MB / 15MB"). A larger initial old
 * generation ends that: measured at 200,000 properties under the query mix, 3–4 full collections
 * in 6.5 s instead of 30–37, half the gateway's CPU per request, p99 30 ms instead of 51.
 *
 * V8 runs its collector's parallel and concurrent work (scavenges, marking, compaction) on a pool
 * of worker threads, four per process by default whatever the CPUs the process is given. Each app
 * gets at most as many as the CPUs its Kubernetes limit allows (listings 2, the others 1): on the
 * 2-core machine of the embedded runtime, five processes with four each let a collection in one
 * process take both cores, and listings' event loop, ready to run, waited for a CPU 60–126 ms at a
 * time while four of its own collector threads ran (sampled per thread from /proc during the
 * listings-scale load); a pod over its CPU quota is throttled the same way.
 */
export const APP_NODE_FLAGS: Partial<Record<string, string[]>> = {
  listings: ['--max-old-space-size=1536', '--max-semi-space-size=16', '--v8-pool-size=2'],
  geo: ['--v8-pool-size=1'],
  searches: ['--v8-pool-size=1'],
  notifier: ['--v8-pool-size=1'],
  gateway: ['--initial-old-space-size=128', '--v8-pool-size=1'],
};

export const APP_NAMES = ['listings', 'geo', 'searches', 'notifier', 'gateway'] as const;
export type AppName = (typeof APP_NAMES)[number];
/** The apps behind the gateway: each answers probes and `/metrics` on the health port base plus its index here. */
const SERVICE_NAMES = APP_NAMES.filter((name): name is Exclude<AppName, 'gateway'> => name !== 'gateway');

export interface StackOptions {
  /** Repository root holding dist/. */
  root: string;
  dataDir: string;
  port: number;
  /** Port for the embedded nats-server; ignored when natsUrl points at an external one. */
  natsPort: number;
  natsUrl?: string;
  /** First of four consecutive HTTP probe ports for the services; 0 disables them. */
  healthPortBase: number;
  /** `inherit` prints app output; a directory writes one log file per process there. */
  output: 'inherit' | { logDir: string };
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** Told of each start-up step as it completes, in one line (`npm start`'s quiet output). */
  onStep?: (line: string) => void;
}

export interface RunningStack {
  baseUrl: string;
  /** The data directory every app and the embedded nats-server keep their state in. */
  dataDir: string;
  apiKey: string;
  adminApiKey: string;
  natsUrl: string;
  readonly pids: Record<string, number | undefined>;
  /** Stops one app, or a replica by its label (to see health notice it). */
  stopApp(name: string): Promise<void>;
  /** Kills one app (or the embedded nats-server) outright (SIGKILL), as a crash would. */
  killApp(name: AppName | 'nats-server'): Promise<void>;
  /** Starts a stopped or killed app (or nats-server) again with the same settings; resolves once it runs. */
  restartApp(name: AppName | 'nats-server'): Promise<void>;
  /** How an app's last run ended: its exit code, or the signal that killed it; null while it runs. */
  exitStatus(name: string): { code: number | null; signal: string | null } | null;
  /** Starts one more instance of a service (a replica) under `label`, with extra settings. */
  startReplica(name: AppName, label: string, env: NodeJS.ProcessEnv): Promise<void>;
  /** Where a service answers its probes and `/metrics`; null when the stack runs without health ports. */
  healthUrl(name: Exclude<AppName, 'gateway'>): string | null;
  stop(): Promise<void>;
}

/**
 * Keys `npm start` hands out, created once and kept in the data directory: `api-key`, the
 * development account's key (the searches service creates that account on first start), and
 * `admin-api-key` for the admin operations (accounts, ingestion, read models).
 */
export function ensureApiKey(dataDir: string, name: 'api-key' | 'admin-api-key' = 'api-key'): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  // The client key is an account key: the searches service makes it the development account's.
  const key = name === 'api-key' ? newApiKey().apiKey : randomBytes(24).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((done) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
}

export async function waitForReady(baseUrl: string, timeoutMs: number, exited: () => string | null): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    const dead = exited();
    if (dead) throw new Error(`${dead} exited during start-up`);
    try {
      const response = await fetch(`${baseUrl}/health/ready`);
      last = await response.text();
      if (response.status === 200) return;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the stack was not ready after ${timeoutMs} ms: ${last}`);
}

/** Past the apps' own bound (SHUTDOWN_TIMEOUT_MS, 20 s by default): they stop by themselves, or are killed. */
const STOP_GRACE_MS = 25_000;

function stopProcess(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A nats-server left running on this data directory by a launcher that was killed outright
 * (its apps exit by themselves, a nats-server cannot). Identified by its pid file and command
 * line, so nothing else is ever signalled.
 */
async function stopLeftoverNatsServer(pidFile: string, storeDir: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 1) return;
  let commandLine = '';
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!commandLine.includes('nats-server') || !commandLine.includes(storeDir)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs the embedded stack: a local nats-server with JetStream and the five apps as separate
 * processes, all state under one data directory. Used by `npm start` and the end-to-end tests.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const startedAt = Date.now();
  const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)} s`;
  const step = (line: string) => options.onStep?.(line);
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const apiKey = ensureApiKey(dataDir);
  const adminApiKey = ensureApiKey(dataDir, 'admin-api-key');
  const children = new Map<string, ChildProcess>();
  const launchSettings = new Map<string, { command: string; args: string[]; env: NodeJS.ProcessEnv }>();
  // Spawn wants file descriptors, so each log file is opened before its process starts; the
  // child keeps its own copy, the parent closes its one once the child is spawned.
  const openLog = async (name: string): Promise<{ stdio: 'inherit' | ['ignore', number, number]; close(): void }> => {
    if (options.output === 'inherit') return { stdio: 'inherit', close: () => undefined };
    mkdirSync(options.output.logDir, { recursive: true });
    const stream = createWriteStream(join(options.output.logDir, `${name}.log`), { flags: 'a' });
    const fd = await new Promise<number>((done) => stream.once('open', done));
    return { stdio: ['ignore', fd, fd], close: () => stream.close() };
  };
  const launch = async (name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<ChildProcess> => {
    const log = await openLog(name);
    const child = spawn(command, args, { env, stdio: log.stdio });
    log.close();
    children.set(name, child);
    launchSettings.set(name, { command, args, env });
    return child;
  };

  const stopAll = async () => {
    const apps = [...children.entries()].filter(([name]) => name !== 'nats-server');
    await Promise.all(apps.map(([, child]) => stopProcess(child)));
    const nats = children.get('nats-server');
    if (nats) await stopProcess(nats);
  };

  try {
    let natsUrl = options.natsUrl;
    if (!natsUrl) {
      const binary = findNatsServer(options.env ?? process.env);
      if (!binary) throw new Error('nats-server is not installed: run `sudo apt-get install -y nats-server`');
      const storeDir = join(dataDir, 'nats');
      mkdirSync(storeDir, { recursive: true });
      const pidFile = join(storeDir, 'nats-server.pid');
      await stopLeftoverNatsServer(pidFile, storeDir);
      const configFile = writeNatsConfig(storeDir, options.natsPort, pidFile);
      await launch('nats-server', binary, ['-c', configFile], process.env);
      await waitForPort(options.natsPort, 10_000);
      natsUrl = `nats://127.0.0.1:${options.natsPort}`;
      step(`nats-server listening on ${natsUrl} (JetStream in ${storeDir})`);
    }

    const healthPortOf = (name: Exclude<AppName, 'gateway'>) => options.healthPortBase + SERVICE_NAMES.indexOf(name);
    for (const name of APP_NAMES) {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...options.env,
        NATS_URL: natsUrl,
        DATA_DIR: dataDir,
        // The apps exit on their own if this launcher dies without stopping them.
        EXIT_WITH_PARENT_PID: String(process.pid),
      };
      if (name === 'gateway') {
        env['PORT'] = String(options.port);
        env['ADMIN_API_KEY'] = adminApiKey;
      } else {
        env['HEALTH_PORT'] = options.healthPortBase > 0 ? String(healthPortOf(name)) : '0';
      }
      // STACK_NODE_ARGS adds node flags to every app (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
      const extraArgs = (process.env['STACK_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
      const args = ['--enable-source-maps', ...(APP_NODE_FLAGS[name] ?? []), ...extraArgs, join(options.root, 'dist', 'apps', name, 'src', 'main.js')];
      await launch(name, process.execPath, args, env);
    }

    const baseUrl = `http://127.0.0.1:${options.port}`;
    const exitedApp = () => {
      for (const [name, child] of children) if (child.exitCode !== null) return name;
      return null;
    };
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    if (options.onStep && options.healthPortBase > 0) {
      // Each service's own probe, so each one is reported as it becomes ready.
      await Promise.all(
        SERVICE_NAMES.map(async (name) => {
          await waitForReady(`http://127.0.0.1:${healthPortOf(name)}`, timeoutMs, exitedApp);
          step(`${name} ready (pid ${children.get(name)?.pid ?? '?'}, ${elapsed()})`);
        }),
      );
    }
    await waitForReady(baseUrl, timeoutMs, exitedApp);
    step(`gateway ready on ${baseUrl} (${elapsed()})`);

    return {
      baseUrl,
      dataDir,
      apiKey,
      adminApiKey,
      natsUrl,
      // Live: a restarted app has a new pid.
      get pids() {
        return Object.fromEntries([...children.entries()].map(([name, child]) => [name, child.pid]));
      },
      async stopApp(name) {
        const child = children.get(name);
        if (child) await stopProcess(child);
      },
      async killApp(name) {
        const child = children.get(name);
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
      async restartApp(name) {
        const settings = launchSettings.get(name);
        if (!settings) throw new Error(`${name} was never started`);
        await launch(name, settings.command, settings.args, settings.env);
      },
      exitStatus(name) {
        const child = children.get(name);
        if (!child || (child.exitCode === null && child.signalCode === null)) return null;
        return { code: child.exitCode, signal: child.signalCode };
      },
      async startReplica(name, label, env) {
        const settings = launchSettings.get(name);
        if (!settings) throw new Error(`${name} was never started`);
        await launch(label, settings.command, settings.args, { ...settings.env, ...env });
      },
      healthUrl(name) {
        return options.healthPortBase > 0 ? `http://127.0.0.1:${healthPortOf(name)}` : null;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${logTails(options, [...children.keys()], error)}`);
  }
}

/** Runs `run` against a stack on free ports with a throw-away data directory (benchmarks). */
export async function withTemporaryStack<T>(root: string, run: (stack: RunningStack) => Promise<T>, env: NodeJS.ProcessEnv = {}): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stack-'));
  const stack = await startStack({
    root,
    dataDir,
    port: await freePort(),
    natsPort: await freePort(),
    // Probes and metrics, as in production: a benchmark reads a service's own figures there.
    healthPortBase: await freePortRange(SERVICE_NAMES.length),
    output: { logDir: join(dataDir, 'logs') },
    // Load generators call far above a client's limit, with one key.
    env: { RATE_LIMIT_REQUESTS: '0', ...env },
  });
  let failed = false;
  try {
    return await run(stack);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await stack.stop();
    // A failed run's logs are what explains it: they outlive the data directory.
    if (failed) keepLogs(join(dataDir, 'logs'));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Copies a failed run's logs out of its data directory (deleted next) and says where they are. */
function keepLogs(logDir: string): void {
  if (!existsSync(logDir)) return;
  const kept = mkdtempSync(join(tmpdir(), 'stack-logs-'));
  cpSync(logDir, kept, { recursive: true });
  process.stderr.write(`the stack's logs are kept in ${kept}\n`);
}

/**
 * The embedded nats-server's settings: loopback only, JetStream in the data directory, and a
 * system account, without which the server warns of every advisory it cannot send ("Advisory
 * could not be sent for account $G") while the apps work.
 */
function writeNatsConfig(storeDir: string, port: number, pidFile: string): string {
  const file = join(storeDir, 'nats-server.conf');
  writeFileSync(
    file,
    [
      'host: 127.0.0.1',
      `port: ${port}`,
      `pid_file: ${JSON.stringify(pidFile)}`,
      `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
      // The apps connect without credentials into the application account; the system account has no user.
      'accounts { APP { jetstream: enabled, users: [{ user: app, password: app }] }, SYS {} }',
      'system_account: SYS',
      'no_auth_user: app',
      '',
    ].join('\n'),
  );
  return file;
}

/** When start-up failed, the last lines of the logs of the processes that stopped (or of all of them). */
function logTails(options: StackOptions, names: string[], error: unknown): string {
  if (options.output === 'inherit') return '';
  const logDir = options.output.logDir;
  const message = error instanceof Error ? error.message : '';
  const failed = names.filter((name) => message.includes(name));
  const shown = failed.length > 0 ? failed : names;
  return shown
    .map((name) => {
      try {
        const lines = readFileSync(join(logDir, `${name}.log`), 'utf8').trimEnd().split('\n').slice(-15);
        return `\n--- last lines of ${name} (${join(logDir, `${name}.log`)}) ---\n${lines.join('\n')}`;
      } catch {
        return '';
      }
    })
    .join('');
}
