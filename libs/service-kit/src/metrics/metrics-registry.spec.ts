import { collectedCounter, collectedGauge, metricsRegistry, metricsText } from './metrics-registry';
import { observeNatsRequest } from './nats-request-metrics';

describe('metrics registry', () => {
  it('holds the default process metrics, event-loop delay included', async () => {
    const text = await metricsText();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(metricsRegistry()).toBe(metricsRegistry());
  });

  it('reads a gauge when scraped, and drops the label sets no longer read', async () => {
    let states: Record<string, string> = { 'a.example': 'open', 'b.example': 'closed' };
    collectedGauge({
      name: 'test_breaker_state',
      help: 'test',
      labelNames: ['host', 'state'],
      read: () => Object.entries(states).map(([host, state]) => ({ labels: { host, state }, value: 1 })),
    });
    let text = await metricsText();
    expect(text).toContain('test_breaker_state{host="a.example",state="open"} 1');
    expect(text).toContain('test_breaker_state{host="b.example",state="closed"} 1');
    states = { 'a.example': 'halfOpen' };
    text = await metricsText();
    expect(text).toContain('test_breaker_state{host="a.example",state="halfOpen"} 1');
    expect(text).not.toContain('b.example');
    expect(text).not.toContain('state="open"');
  });

  it('mirrors a count kept elsewhere in a counter', async () => {
    const counters = { delivered: 0 };
    collectedCounter({ name: 'test_delivered_total', help: 'test', read: () => counters.delivered });
    counters.delivered = 7;
    expect(await metricsText()).toContain('test_delivered_total 7');
    counters.delivered = 9;
    expect(await metricsText()).toContain('test_delivered_total 9');
  });

  it('keeps the last values of a metric whose reading fails, and serves the rest', async () => {
    let pending: () => Promise<number> = async () => 5;
    collectedGauge({ name: 'test_pending', help: 'test', read: () => pending() });
    collectedGauge({ name: 'test_working', help: 'test', read: async () => 3 });
    expect(await metricsText()).toMatch(/^test_pending 5$/m);
    pending = () => Promise.reject(new Error('store down'));
    const text = await metricsText();
    expect(text).toMatch(/^test_working 3$/m);
    expect(text).toMatch(/^test_pending 5$/m);
  });

  it('replaces a metric registered again under the same name', async () => {
    collectedGauge({ name: 'test_replaced', help: 'test', read: () => 1 });
    collectedGauge({ name: 'test_replaced', help: 'test', read: () => 2 });
    expect(await metricsText()).toMatch(/^test_replaced 2$/m);
  });

  it('times NATS requests by subject and outcome', async () => {
    observeNatsRequest('geo.query.department.v1', 'ok', 0.002);
    observeNatsRequest('geo.query.department.v1', 'ok', 0.004);
    observeNatsRequest('geo.query.department.v1', 'timeout', 1);
    const text = await metricsText();
    expect(text).toContain('nats_request_duration_seconds_count{subject="geo.query.department.v1",outcome="ok"} 2');
    expect(text).toContain('nats_request_duration_seconds_count{subject="geo.query.department.v1",outcome="timeout"} 1');
    expect(text).toContain('nats_request_duration_seconds_bucket{le="0.0025",subject="geo.query.department.v1",outcome="ok"} 1');
  });
});
