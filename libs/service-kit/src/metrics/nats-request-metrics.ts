import { Histogram } from 'prom-client';
import { replacing } from './metrics-registry';

/** How a NATS request ended: answered, or the `RpcCallError` kind, or another failure. */
export type NatsRequestOutcome = 'ok' | 'remote' | 'timeout' | 'unavailable' | 'too-large' | 'error';

/** From a cached geo lookup (well under a millisecond) to an ingestion batch (up to 15 s). */
const BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

type Child = Histogram.Internal<'subject' | 'outcome'>;

let histogram: Histogram<'subject' | 'outcome'> | null = null;
/** Children by subject then outcome: a request observes without building a label set. */
const children = new Map<string, Map<NatsRequestOutcome, Child>>();

/** Registers the histogram (so it is listed before the first request). */
export function requestDuration(): Histogram<'subject' | 'outcome'> {
  histogram ??= replacing(
    'nats_request_duration_seconds',
    (registers) =>
      new Histogram({
        name: 'nats_request_duration_seconds',
        help: 'NATS requests this process made (NatsRpcClient), by subject and outcome: ok, remote (the service answered an error), timeout, unavailable (no responder or not connected), too-large, error.',
        labelNames: ['subject', 'outcome'],
        buckets: BUCKETS_SECONDS,
        registers,
      }),
  );
  return histogram;
}

export function observeNatsRequest(subject: string, outcome: NatsRequestOutcome, seconds: number): void {
  let bySubject = children.get(subject);
  if (bySubject === undefined) {
    bySubject = new Map();
    children.set(subject, bySubject);
  }
  let child = bySubject.get(outcome);
  if (child === undefined) {
    child = requestDuration().labels({ subject, outcome });
    bySubject.set(outcome, child);
  }
  child.observe(seconds);
}
