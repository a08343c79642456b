import { connect, type NatsConnection } from 'nats';

/**
 * Connects to NATS or fails with a message naming NATS and the URL: a service that cannot reach
 * its broker must stop at once rather than retry silently behind a green process.
 */
export async function connectNats(url: string, options: { name: string; timeoutMs: number }): Promise<NatsConnection> {
  const servers = url.split(',').map((server) => server.trim());
  try {
    return await connect({
      servers,
      name: options.name,
      timeout: options.timeoutMs,
      // After the first connection, ride out broker restarts instead of exiting.
      reconnect: true,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: false,
      // The client otherwise builds an Error (a stack capture) for every request and JetStream
      // publish in case it times out: a measurable share of ingestion's CPU. Timeouts still
      // surface as NatsError TIMEOUT, without the caller's frames.
      noAsyncTraces: true,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot connect to NATS at ${url}: ${reason}`);
  }
}
