import { connect, type NatsConnection } from 'nats';
import { natsConnectionOptions, type NatsClientSettings } from './nats-connection-options';
import type { NatsPrincipal } from './nats-permissions';

/**
 * Connects to NATS or fails with a message naming NATS and the URL: a service that cannot reach
 * its broker must stop at once rather than retry silently behind a green process. `principal`:
 * whose credentials and inbox prefix these are (null for a tool with none of its own).
 */
export async function connectNats(settings: NatsClientSettings, options: { name: string; principal: NatsPrincipal | null }): Promise<NatsConnection> {
  try {
    return await connect({
      ...natsConnectionOptions(settings, options.principal),
      name: options.name,
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
    throw new Error(`Cannot connect to NATS at ${settings.NATS_URL}${settings.NATS_USER ? ` as ${settings.NATS_USER}` : ''}: ${reason}`);
  }
}
