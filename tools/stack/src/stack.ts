import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as tcpConnect } from 'node:net';
import { join, resolve } from 'node:path';
import type { ConnectionOptions } from 'nats';
import { newApiKey } from '@immo/contracts';
import { natsAccountsConfig, type NatsPrincipal } from '@immo/service-kit';
import { findNatsServer, freePortRange, jetStreamReady } from '@immo/testing';
import { ensureNatsPasswords, natsConnectOptionsOf, natsCredentialEnv, type NatsPasswords } from './nats-credentials';

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
  /**
   * Replicas of each service and of the gateway (`REPLICAS`, 1 by default). With more than one,
   * searches and notifier keep their read models in the shared store (a stand-in for production's
   * shared MongoDB, served by one more process), and listings replicas each keep their own store
   * or share one (`listingsStore`). Gateway replica r listens on `port + r - 1`; service replica r
   * answers its probes on `healthPortBase + (r - 1) * 4 + index`.
   */
  replicas?: number;
  /** nats-servers: 1, or a 3-node JetStream cluster (`NATS_NODES`) with streams and buckets in 3 copies. */
  natsNodes?: 1 | 3;
  /** Route ports of a NATS cluster: this and the next two (default: the client port plus 2000). */
  natsRoutePortBase?: number;
  /** With replicas: listings replicas with their own embedded stores (default) or one shared store. */
  listingsStore?: 'private' | 'shared';
  /**
   * A local inbox for alert e-mails (MailDev: an SMTP server and a web inbox on loopback), used
   * when no SMTP_URL is given: `npm start`'s first hour shows e-mails without any mail account.
   */
  localInbox?: { smtpPort: number; webPort: number };
}

export interface RunningStack {
  baseUrl: string;
  /** Every gateway replica's base URL, the first being `baseUrl`. */
  baseUrls: string[];
  /** The processes of an app's replicas (`listings`, `listings-2`…), or of the NATS nodes for `nats-server`. */
  replicasOf(name: AppName | 'nats-server'): string[];
  /** The data directory every app and the embedded nats-server keep their state in. */
  dataDir: string;
  apiKey: string;
  adminApiKey: string;
  natsUrl: string;
  /** The local inbox's web page, when the stack runs one (see `localInbox`). */
  inboxUrl: string | null;
  /**
   * nats.js options to connect as one of the principals (its user, password and inbox prefix):
   * the stack's nats-server refuses clients without credentials.
   */
  natsConnectOptions(principal: NatsPrincipal): ConnectionOptions;
  readonly pids: Record<string, number | undefined>;
  /** Stops one app, or a replica by its label (to see health notice it). */
  stopApp(name: string): Promise<void>;
  /** Kills one process (an app, a replica by its label, a NATS node, the shared store) outright (SIGKILL), as a crash would. */
  killApp(name: string): Promise<void>;
  /** Starts a stopped or killed process again with the same settings; resolves once it runs. */
  restartApp(name: string): Promise<void>;
  /** Freezes a process (SIGSTOP), as a long pause or a host that stops scheduling it would. */
  pauseApp(name: string): void;
  /** Lets a paused process go on (SIGCONT). */
  resumeApp(name: string): void;
  /** How an app's last run ended: its exit code, or the signal that killed it; null while it runs. */
  exitStatus(name: string): { code: number | null; signal: string | null } | null;
  /** Starts one more instance of a service (a replica) under `label`, with extra settings. */
  startReplica(name: AppName, label: string, env: NodeJS.ProcessEnv): Promise<void>;
  /** Where a service replica answers its probes and `/metrics`; null when the stack runs without health ports. */
  healthUrl(name: Exclude<AppName, 'gateway'>, replica?: number): string | null;
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

/**
 * The notifier's SECRETS_KEY (the key webhook signing secrets are stored encrypted under): the one
 * given in the environment, else one made on first start and kept in `DATA_DIR/secrets-key`, so
 * that the secrets stored there still open after a restart.
 */
export function ensureSecretsKey(dataDir: string, given: NodeJS.ProcessEnv): string {
  const configured = given['SECRETS_KEY'];
  if (configured !== undefined && configured !== '') return configured;
  const file = join(dataDir, 'secrets-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = `k1:${randomBytes(32).toString('base64')}`;
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
  const secretsKey = ensureSecretsKey(dataDir, { ...process.env, ...options.env });
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

  const replicas = options.replicas ?? 1;
  const natsNodes = options.natsNodes ?? 1;
  const natsNames = Array.from({ length: natsNodes }, (_, i) => replicaLabel('nats-server', i + 1));
  const stopAll = async () => {
    // The apps first (they flush their stores), then the shared store, then NATS.
    const last = new Set(['shared-store', ...natsNames]);
    const apps = [...children.entries()].filter(([name]) => !last.has(name));
    await Promise.all(apps.map(([, child]) => stopProcess(child)));
    const store = children.get('shared-store');
    if (store) await stopProcess(store);
    await Promise.all(natsNames.map((name) => children.get(name)).map((child) => (child ? stopProcess(child) : undefined)));
  };

  try {
    let natsUrl = options.natsUrl;
    // An external nats-server is the caller's: its users are its own business.
    const natsPasswords: NatsPasswords | null = natsUrl ? null : ensureNatsPasswords(dataDir);
    if (!natsUrl) {
      const binary = findNatsServer(options.env ?? process.env);
      if (!binary) throw new Error('nats-server is not installed: run `sudo apt-get install -y nats-server`');
      const nodes = natsNodeSettings(dataDir, options.natsPort, natsNodes, options.natsRoutePortBase);
      for (const node of nodes) {
        mkdirSync(node.storeDir, { recursive: true });
        await stopLeftoverNatsServer(node.pidFile, node.storeDir);
        await launch(node.name, binary, ['-c', writeNatsConfig(node, nodes, natsPasswords as NatsPasswords)], process.env);
      }
      for (const node of nodes) await waitForPort(node.port, 10_000);
      natsUrl = nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(',');
      // A cluster answers JetStream requests once it has elected its meta leader.
      if (nodes.length > 1) for (const node of nodes) await jetStreamReady(`nats://127.0.0.1:${node.port}`, 30_000, natsConnectOptionsOf(natsPasswords, 'listings', ''));
      step(`${nodes.length === 1 ? 'nats-server' : `${nodes.length}-node NATS cluster`} listening on ${natsUrl} (JetStream in ${nodes.length === 1 ? nodes[0]?.storeDir : join(dataDir, 'nats-cluster')})`);
    }

    const given = { ...process.env, ...options.env };
    const storeOf = (name: AppName): string | undefined => {
      if (given['DOCUMENT_STORE'] !== undefined || replicas === 1) return undefined;
      if (name === 'searches' || name === 'notifier') return 'shared';
      return name === 'listings' && options.listingsStore === 'shared' ? 'shared' : undefined;
    };
    if (APP_NAMES.some((name) => storeOf(name) === 'shared')) {
      const env = { ...given, NATS_URL: natsUrl, DATA_DIR: dataDir, EXIT_WITH_PARENT_PID: String(process.pid), ...natsCredentialEnv(natsPasswords, 'shared-store') };
      await launch('shared-store', process.execPath, ['--enable-source-maps', join(options.root, 'dist', 'tools', 'shared-store', 'src', 'main.js')], env);
      step(`shared store serving the read models of searches and notifier${storeOf('listings') === 'shared' ? ' and listings' : ''} (${join(dataDir, 'shared-store')})`);
    }

    // Alert e-mails: through the given SMTP server, or the local inbox, or not at all.
    let inboxUrl: string | null = null;
    const mailEnv: NodeJS.ProcessEnv = { PUBLIC_BASE_URL: given['PUBLIC_BASE_URL'] ?? `http://127.0.0.1:${options.port}` };
    if (given['SMTP_URL'] === undefined && options.localInbox) {
      const { smtpPort, webPort } = options.localInbox;
      const maildev = join(options.root, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');
      const args = ['--smtp', String(smtpPort), '--ip', '127.0.0.1', '--web', String(webPort), '--web-ip', '127.0.0.1', '--max-emails', '500'];
      await launch('inbox', process.execPath, ['-e', inboxLauncher(maildev), '--', ...args], { ...process.env, EXIT_WITH_PARENT_PID: String(process.pid) });
      await waitForPort(smtpPort, 15_000);
      inboxUrl = `http://127.0.0.1:${webPort}`;
      mailEnv['SMTP_URL'] = `smtp://127.0.0.1:${smtpPort}`;
      // The first hour should see an e-mail within seconds, not after production's 5-minute window.
      mailEnv['MAIL_BATCH_WINDOW_MS'] = given['MAIL_BATCH_WINDOW_MS'] ?? '10000';
      step(`local inbox for alert e-mails on ${inboxUrl} (SMTP on 127.0.0.1:${smtpPort})`);
    }

    const healthPortOf = (name: Exclude<AppName, 'gateway'>, replica = 1) => options.healthPortBase + (replica - 1) * SERVICE_NAMES.length + SERVICE_NAMES.indexOf(name);
    for (let replica = 1; replica <= replicas; replica++) {
      for (const name of APP_NAMES) {
        const label = replicaLabel(name, replica);
        const env: NodeJS.ProcessEnv = {
          ...given,
          NATS_URL: natsUrl,
          DATA_DIR: dataDir,
          // The apps exit on their own if this launcher dies without stopping them.
          EXIT_WITH_PARENT_PID: String(process.pid),
          ...natsCredentialEnv(natsPasswords, name),
        };
        if (name === 'notifier') Object.assign(env, mailEnv);
        if (natsNodes > 1 && given['NATS_REPLICAS'] === undefined) env['NATS_REPLICAS'] = String(natsNodes);
        if (replicas > 1) env['REPLICA_NAME'] = label;
        const store = storeOf(name);
        if (store !== undefined) env['DOCUMENT_STORE'] = store;
        // A listings replica keeps its identity, snapshot and (embedded) read models in a directory of its own.
        if (name === 'listings' && replica > 1) env['DATA_DIR'] = join(dataDir, 'replicas', label);
        // The key that opens the webhook secrets goes to the notifier alone.
        if (name === 'notifier') env['SECRETS_KEY'] = secretsKey;
        else delete env['SECRETS_KEY'];
        if (name === 'gateway') {
          env['PORT'] = String(options.port + replica - 1);
          env['ADMIN_API_KEY'] = adminApiKey;
        } else {
          env['HEALTH_PORT'] = options.healthPortBase > 0 ? String(healthPortOf(name, replica)) : '0';
        }
        // STACK_NODE_ARGS adds node flags to every app (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
        const extraArgs = (process.env['STACK_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
        const args = ['--enable-source-maps', ...(APP_NODE_FLAGS[name] ?? []), ...extraArgs, join(options.root, 'dist', 'apps', name, 'src', 'main.js')];
        await launch(label, process.execPath, args, env);
      }
    }

    const baseUrls = Array.from({ length: replicas }, (_, i) => `http://127.0.0.1:${options.port + i}`);
    const baseUrl = baseUrls[0] as string;
    const exitedApp = () => {
      for (const [name, child] of children) if (child.exitCode !== null) return name;
      return null;
    };
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    if (options.onStep && options.healthPortBase > 0) {
      // Each service replica's own probe, so each one is reported as it becomes ready.
      await Promise.all(
        SERVICE_NAMES.flatMap((name) =>
          Array.from({ length: replicas }, async (_, i) => {
            const label = replicaLabel(name, i + 1);
            await waitForReady(`http://127.0.0.1:${healthPortOf(name, i + 1)}`, timeoutMs, exitedApp);
            step(`${label} ready (pid ${children.get(label)?.pid ?? '?'}, ${elapsed()})`);
          }),
        ),
      );
    }
    for (const url of baseUrls) {
      await waitForReady(url, timeoutMs, exitedApp);
      step(`${baseUrls.length === 1 ? 'gateway' : replicaLabel('gateway', baseUrls.indexOf(url) + 1)} ready on ${url} (${elapsed()})`);
    }

    return {
      baseUrl,
      baseUrls,
      dataDir,
      apiKey,
      adminApiKey,
      natsUrl,
      inboxUrl,
      natsConnectOptions: (principal) => natsConnectOptionsOf(natsPasswords, principal, natsUrl as string),
      replicasOf(name) {
        if (name === 'nats-server') return [...natsNames];
        return Array.from({ length: replicas }, (_, i) => replicaLabel(name, i + 1));
      },
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
      pauseApp(name) {
        children.get(name)?.kill('SIGSTOP');
      },
      resumeApp(name) {
        children.get(name)?.kill('SIGCONT');
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
      healthUrl(name, replica = 1) {
        return options.healthPortBase > 0 ? `http://127.0.0.1:${healthPortOf(name, replica)}` : null;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${logTails(options, [...children.keys()], error)}`);
  }
}

/**
 * Runs MailDev's command line (an ES module) with the arguments after `--`, and stops it once the
 * launcher named in EXIT_WITH_PARENT_PID is gone, as the apps do: a launcher killed outright
 * leaves no inbox holding its ports.
 */
function inboxLauncher(maildevBin: string): string {
  return [
    `const parent = Number(process.env.EXIT_WITH_PARENT_PID);`,
    `setInterval(() => { try { process.kill(parent, 0); } catch { process.kill(process.pid, 'SIGTERM'); } }, 1000).unref();`,
    `process.argv = [process.argv[0], ${JSON.stringify(maildevBin)}, ...process.argv.slice(1)];`,
    `import(require('node:url').pathToFileURL(${JSON.stringify(maildevBin)}).href);`,
  ].join('\n');
}

/** `listings` for the first replica, `listings-2` for the second… */
export function replicaLabel(name: string, replica: number): string {
  return replica === 1 ? name : `${name}-${replica}`;
}

/**
 * Runs `run` against a stack on free ports with a throw-away data directory (benchmarks), of one
 * replica of each service on one nats-server unless `shape` says otherwise.
 */
export async function withTemporaryStack<T>(
  root: string,
  run: (stack: RunningStack) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
  shape: { replicas?: number; natsNodes?: 1 | 3 } = {},
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stack-'));
  const replicas = shape.replicas ?? 1;
  const natsNodes = shape.natsNodes ?? 1;
  const stack = await startStack({
    root,
    dataDir,
    port: await freePortRange(replicas),
    natsPort: await freePortRange(natsNodes),
    natsRoutePortBase: await freePortRange(natsNodes),
    // Probes and metrics, as in production: a benchmark reads a service's own figures there.
    healthPortBase: await freePortRange(SERVICE_NAMES.length * replicas),
    output: { logDir: join(dataDir, 'logs') },
    // Load generators call far above a client's limit, with one key.
    env: { RATE_LIMIT_REQUESTS: '0', AUTH_FAILURES_PER_MINUTE: '0', PUBLIC_REQUESTS_PER_MINUTE: '0', ...env },
    replicas,
    natsNodes,
    readyTimeoutMs: 120_000,
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

interface NatsNode {
  name: string;
  serverName: string;
  port: number;
  routePort: number;
  storeDir: string;
  pidFile: string;
}

/**
 * One node keeps its JetStream in DATA_DIR/nats, as it always has; a cluster's nodes keep theirs
 * in DATA_DIR/nats-cluster/n<i> (a data directory used with one node starts its logs over there).
 */
function natsNodeSettings(dataDir: string, port: number, count: number, routePortBase = port + 2000): NatsNode[] {
  return Array.from({ length: count }, (_, i) => {
    const storeDir = count === 1 ? join(dataDir, 'nats') : join(dataDir, 'nats-cluster', `n${i + 1}`);
    return { name: replicaLabel('nats-server', i + 1), serverName: `n${i + 1}`, port: port + i, routePort: routePortBase + i, storeDir, pidFile: join(storeDir, 'nats-server.pid') };
  });
}

/**
 * A nats-server's settings: loopback only, JetStream in the data directory, one user per
 * principal with its allow-lists and no anonymous access (see `natsAccountsConfig`), a system
 * account (without which the server warns of every advisory it cannot send: "Advisory could not
 * be sent for account $G"), and for a cluster the routes to the other nodes. JetStream syncs its
 * files to disk every two minutes by default (`sync_interval`): what a machine crash can cost one
 * node. The file holds the passwords: it is readable by its owner only.
 */
function writeNatsConfig(node: NatsNode, nodes: readonly NatsNode[], passwords: NatsPasswords): string {
  const file = join(node.storeDir, 'nats-server.conf');
  const lines = [
    `server_name: ${node.serverName}`,
    'host: 127.0.0.1',
    `port: ${node.port}`,
    `pid_file: ${JSON.stringify(node.pidFile)}`,
    `jetstream { store_dir: ${JSON.stringify(node.storeDir)} }`,
    natsAccountsConfig((principal) => JSON.stringify(passwords[principal])),
  ];
  if (nodes.length > 1) {
    const routes = nodes.filter((other) => other !== node).map((other) => JSON.stringify(`nats://127.0.0.1:${other.routePort}`));
    lines.push(`cluster { name: immo, host: 127.0.0.1, port: ${node.routePort}, routes: [${routes.join(', ')}] }`);
  }
  writeFileSync(file, [...lines, ''].join('\n'), { mode: 0o600 });
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
