import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'nats';
import { freePort, natsProcess, type NatsProcess } from './nats-server';

export interface ClusterNode {
  name: string;
  url: string;
  port: number;
  /** SIGKILL: the node is gone at once, its store kept (`start` brings it back). */
  kill(): Promise<void>;
  start(): Promise<void>;
  readonly pid: number | undefined;
}

export interface RunningNatsCluster {
  nodes: ClusterNode[];
  /** Every node's URL, comma-separated, as services take `NATS_URL`. */
  urls: string;
  stop(): Promise<void>;
}

/**
 * A real JetStream cluster of `size` nats-servers on loopback (free ports, throw-away stores), each
 * routing to the others, as production's three nodes are. Resolves once JetStream answers through
 * every node (its meta leader is elected), so streams with `num_replicas: size` can be created.
 */
export async function startNatsCluster(size = 3, clusterName = 'test'): Promise<RunningNatsCluster> {
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const stores = ports.map(() => mkdtempSync(join(tmpdir(), 'nats-cluster-')));
  const processes: NatsProcess[] = ports.map(({ client, route }, i) => {
    const routes = ports.filter((_, j) => j !== i).map((other) => `nats://127.0.0.1:${other.route}`);
    const args = ['-a', '127.0.0.1', '-p', String(client), '--server_name', `n${i + 1}`, '-js', '-sd', stores[i] as string];
    args.push('--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${route}`, '--routes', routes.join(','));
    return natsProcess(args, client);
  });
  const nodes: ClusterNode[] = processes.map((process, i) => ({
    name: `n${i + 1}`,
    url: `nats://127.0.0.1:${ports[i]?.client}`,
    port: ports[i]?.client as number,
    kill: () => process.kill(),
    start: () => process.launch(),
    get pid() {
      return process.pid;
    },
  }));
  const stop = async () => {
    await Promise.all(processes.map((process) => process.halt()));
    for (const store of stores) rmSync(store, { recursive: true, force: true });
  };
  try {
    await Promise.all(processes.map((process) => process.launch()));
    for (const node of nodes) await jetStreamReady(node.url, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, urls: nodes.map((node) => node.url).join(','), stop };
}

/** Waits until JetStream answers through this node (the cluster has elected its meta leader). */
export async function jetStreamReady(url: string, timeoutMs: number, credentials: Partial<ConnectionOptions> = {}): Promise<void> {
  const until = Date.now() + timeoutMs;
  const connection = await connect({ ...credentials, servers: url });
  try {
    for (;;) {
      try {
        await (await connection.jetstreamManager({ timeout: 1000 })).getAccountInfo();
        return;
      } catch (error) {
        if (Date.now() > until) throw new Error(`JetStream not ready through ${url} within ${timeoutMs} ms: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await connection.close();
  }
}
