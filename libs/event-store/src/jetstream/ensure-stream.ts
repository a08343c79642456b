import { NatsError, type JetStreamManager, type StreamConfig } from 'nats';
import { whileJetStreamSettles } from './while-jetstream-settles';

const ERR_STREAM_NOT_FOUND = 10059;

/**
 * Creates a JetStream stream unless it exists. Only "stream not found" leads to a creation; any
 * other failure (no JetStream, no permission, NATS down) is the caller's. Two instances starting
 * together may both try to create it: the loser checks it now exists instead of failing. An
 * existing stream with another replica count than asked is updated to it (an operator moving
 * from one nats-server to a cluster sets `NATS_REPLICAS` and restarts the services).
 */
export function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  return whileJetStreamSettles(() => ensureStreamOnce(jsm, config));
}

async function ensureStreamOnce(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  // One stream's replica: no leader to wait for (the usual case on one nats-server).
  if (!(await createOrUpdate(jsm, config))) return;
  await leaderElected(jsm, config.name);
}

/** True when the stream is replicated (a leader may still be electing). */
async function createOrUpdate(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<boolean> {
  try {
    const { config: current } = await jsm.streams.info(config.name);
    if (config.num_replicas !== undefined && current.num_replicas !== config.num_replicas) {
      await jsm.streams.update(config.name, { ...current, num_replicas: config.num_replicas });
    }
    return (config.num_replicas ?? current.num_replicas) > 1;
  } catch (error) {
    if (!(error instanceof NatsError) || error.api_error?.err_code !== ERR_STREAM_NOT_FOUND) throw error;
  }
  try {
    await jsm.streams.add(config);
  } catch (error) {
    await jsm.streams.info(config.name).catch(() => {
      throw error;
    });
  }
  return (config.num_replicas ?? 1) > 1;
}

/**
 * On a cluster, a stream just created takes a moment to elect its leader, and a publish meanwhile
 * finds no responder (503): the stream is handed over once it has one (10 s at most).
 */
async function leaderElected(jsm: JetStreamManager, name: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { cluster } = await jsm.streams.info(name);
    if (cluster === undefined || cluster.leader || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
