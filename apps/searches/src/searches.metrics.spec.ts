import { metricsText, type OutboxRelay } from '@immo/service-kit';
import type { MatcherCounters } from './matching/alert-matcher';
import { registerSearchesMetrics } from './searches.metrics';

describe('searches metrics', () => {
  it('reads the projection lag, the matcher counts and its outbox when scraped', async () => {
    const counters: MatcherCounters = { events: 0, matches: 0, notifications: 0, rejected: 0, outOfOrder: 0 };
    const projection = { checkpoint: 40 as number | null };
    const outbox = { pending: async () => 5, publishedCount: 30, failedAttempts: 1, deadLetterCount: 0 } as unknown as OutboxRelay;
    registerSearchesMetrics({ eventStore: { headPosition: async () => 42 }, projection, matcher: { counters, outbox } });
    Object.assign(counters, { events: 100, matches: 7, notifications: 9, rejected: 1, outOfOrder: 3 });
    const text = await metricsText();
    expect(text).toContain('projection_lag_positions{projection="searches"} 2');
    expect(text).toContain('alert_matcher_events_total{outcome="handled"} 100');
    expect(text).toContain('alert_matcher_events_total{outcome="rejected"} 1');
    expect(text).toContain('alert_matcher_events_total{outcome="out_of_order"} 3');
    expect(text).toMatch(/^alert_matcher_matches_created_total 7$/m);
    expect(text).toMatch(/^alert_matcher_notifications_decided_total 9$/m);
    expect(text).toContain('outbox_pending_messages{outbox="alert_notifications"} 5');
    expect(text).toContain('outbox_published_total{outbox="alert_notifications"} 30');
    projection.checkpoint = 42;
    expect(await metricsText()).toContain('projection_lag_positions{projection="searches"} 0');
  });
});
