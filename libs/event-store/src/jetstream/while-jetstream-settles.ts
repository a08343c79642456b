import { ErrorCode, NatsError } from 'nats';

const RETRY_MS = 250;

/**
 * Runs a JetStream set-up step (a stream, a consumer, a KV bucket) again while the cluster cannot
 * answer it yet: no responder for the JetStream API (503), a timeout, or JetStream saying it is
 * temporarily unavailable. A 3-node cluster that just started, or lost a node, elects its
 * leaders for a few seconds, and a service starting then would otherwise exit. Any other error,
 * and the last one after `withinMs`, is the caller's.
 */
export async function whileJetStreamSettles<T>(step: () => Promise<T>, withinMs = 30_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!isSettling(error) || Date.now() + RETRY_MS >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

function isSettling(error: unknown): boolean {
  if (!(error instanceof NatsError)) return false;
  if (error.code === ErrorCode.NoResponders || error.code === ErrorCode.Timeout || error.code === ErrorCode.JetStreamNotEnabled) return true;
  return error.api_error?.code === 503 || /temporarily unavailable/i.test(error.message);
}
