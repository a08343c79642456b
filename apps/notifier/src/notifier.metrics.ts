import { collectedCounter, collectedGauge } from '@immo/service-kit';
import type { DeliveryDispatcher } from './deliveries/delivery-dispatcher';
import type { EndpointBreakers } from './delivery/endpoint-breakers';
import type { EmailBatcherCounters } from './email/email-batcher';

const OUTCOMES = ['delivered', 'failed', 'retried', 'deferred', 'cancelled'] as const;

/**
 * The notifier numbers in `/metrics`, read at scrape time from where they are kept: delivery
 * outcomes (webhooks and e-mails), requests in flight, each endpoint host's and SMTP server's
 * circuit breaker, and the e-mail batches.
 */
export function registerNotifierMetrics(
  dispatcher: Pick<DeliveryDispatcher, 'counters' | 'inFlight'>,
  breakers: Pick<EndpointBreakers, 'states'>,
  email: { batches: EmailBatcherCounters; breakers: Pick<EndpointBreakers, 'states'> } | null = null,
): void {
  collectedCounter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts and decisions by outcome: delivered, failed (for good), retried (scheduled again), deferred (breaker open, no attempt spent), cancelled (search no longer wants it).',
    labelNames: ['outcome'],
    read: () => OUTCOMES.map((outcome) => ({ labels: { outcome }, value: dispatcher.counters[outcome] })),
  });
  collectedGauge({
    name: 'webhook_deliveries_in_flight',
    help: 'Webhook requests under way.',
    read: () => dispatcher.inFlight,
  });
  collectedGauge({
    name: 'webhook_endpoint_breaker_state',
    help: 'Circuit breaker of each endpoint host seen: 1 on its current state (closed, open, halfOpen).',
    labelNames: ['host', 'state'],
    read: () => Object.entries({ ...breakers.states(), ...email?.breakers.states() }).map(([host, state]) => ({ labels: { host, state }, value: 1 })),
  });
  if (email === null) return;
  collectedCounter({
    name: 'email_batches_total',
    help: 'Alert e-mails formed from waiting notifications, batches held back by the hourly cap of their address (each pass they wait), and batches another replica formed first.',
    labelNames: ['outcome'],
    read: () => [
      { labels: { outcome: 'formed' }, value: email.batches.formed },
      { labels: { outcome: 'held_by_cap' }, value: email.batches.heldByCap },
      { labels: { outcome: 'formed_elsewhere' }, value: email.batches.conflicts },
    ],
  });
}
