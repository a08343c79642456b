import { collectedCounter, collectedGauge, type Sample } from '../metrics/metrics-registry';
import type { OutboxRelay } from './outbox-relay';

/** The relays of this process by outbox name (listings: its integration outbox; searches: alert notifications). */
const relays = new Map<string, OutboxRelay>();

/**
 * Reports an outbox in `/metrics`, read at scrape time: messages waiting (the backlog between a
 * commit and the broker), published, publish failures and dead letters since the process started.
 */
export function registerOutboxMetrics(outbox: string, relay: OutboxRelay): void {
  relays.set(outbox, relay);
  const each = (read: (relay: OutboxRelay) => number): Sample<'outbox'>[] => [...relays].map(([name, r]) => ({ labels: { outbox: name }, value: read(r) }));
  collectedGauge({
    name: 'outbox_pending_messages',
    help: 'Messages committed to the outbox and not yet acknowledged by the broker.',
    labelNames: ['outbox'],
    read: async () => Promise.all([...relays].map(async ([name, r]) => ({ labels: { outbox: name }, value: await r.pending() }))),
  });
  collectedCounter({
    name: 'outbox_published_total',
    help: 'Outbox messages the broker acknowledged, since the process started.',
    labelNames: ['outbox'],
    read: () => each((r) => r.publishedCount),
  });
  collectedCounter({
    name: 'outbox_publish_failures_total',
    help: 'Outbox drains that failed and were retried with backoff, since the process started.',
    labelNames: ['outbox'],
    read: () => each((r) => r.failedAttempts),
  });
  collectedCounter({
    name: 'outbox_dead_letters_total',
    help: 'Outbox messages the broker can never take (over its payload limit), set aside, since the process started.',
    labelNames: ['outbox'],
    read: () => each((r) => r.deadLetterCount),
  });
}
