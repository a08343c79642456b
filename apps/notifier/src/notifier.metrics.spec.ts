import { metricsText } from '@immo/service-kit';
import type { DispatchCounters } from './deliveries/delivery-dispatcher';
import type { BreakerState } from './delivery/endpoint-breakers';
import { registerNotifierMetrics } from './notifier.metrics';

describe('notifier metrics', () => {
  it('reads delivery outcomes, requests in flight and breaker states when scraped', async () => {
    const counters: DispatchCounters = { delivered: 0, failed: 0, retried: 0, deferred: 0, cancelled: 0 };
    let states: Record<string, BreakerState> = { 'hooks.example.com': 'closed', 'down.example.com': 'open' };
    registerNotifierMetrics({ counters, inFlight: 3 }, { states: () => states });
    Object.assign(counters, { delivered: 12, failed: 1, retried: 4, deferred: 2 });
    let text = await metricsText();
    expect(text).toContain('webhook_deliveries_total{outcome="delivered"} 12');
    expect(text).toContain('webhook_deliveries_total{outcome="retried"} 4');
    expect(text).toContain('webhook_deliveries_total{outcome="cancelled"} 0');
    expect(text).toMatch(/^webhook_deliveries_in_flight 3$/m);
    expect(text).toContain('webhook_endpoint_breaker_state{host="down.example.com",state="open"} 1');
    expect(text).toContain('webhook_endpoint_breaker_state{host="hooks.example.com",state="closed"} 1');
    states = { 'down.example.com': 'halfOpen' };
    text = await metricsText();
    expect(text).toContain('webhook_endpoint_breaker_state{host="down.example.com",state="halfOpen"} 1');
    expect(text).not.toContain('state="open"');
  });
});
