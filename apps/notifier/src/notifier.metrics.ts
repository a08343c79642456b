import { collectedCounter, collectedGauge } from '@immo/service-kit';
import type { DeliveryDispatcher } from './deliveries/delivery-dispatcher';
import type { EndpointBreakers } from './delivery/endpoint-breakers';

const OUTCOMES = ['delivered', 'failed', 'retried', 'deferred', 'cancelled'] as const;

/**
 * The notifier numbers in `/metrics`, read at scrape time from where they are kept: delivery
 * outcomes, requests in flight, and each endpoint host's circuit breaker.
 */
export function registerNotifierMetrics(dispatcher: Pick<DeliveryDispatcher, 'counters' | 'inFlight'>, breakers: Pick<EndpointBreakers, 'states'>): void {
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
    read: () => Object.entries(breakers.states()).map(([host, state]) => ({ labels: { host, state }, value: 1 })),
  });
}
