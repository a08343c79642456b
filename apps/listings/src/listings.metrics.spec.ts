import { metricsText } from '@immo/service-kit';
import type { ListingsRuntime } from './listings-runtime';
import { registerListingsMetrics } from './listings.metrics';

describe('listings metrics', () => {
  it('reads the projection lag, snapshots ingested by outcome and the outbox when scraped', async () => {
    let head: number | null = null;
    const runner = { checkpoint: null as number | null };
    const ingestion = { counters: { changed: 0, unchanged: 0, rejected: 0 } };
    const relay = { pending: async () => 12, publishedCount: 300, failedAttempts: 2, deadLetterCount: 1 };
    registerListingsMetrics({ eventStore: { headPosition: async () => head }, runner, ingestion, relay } as unknown as ListingsRuntime);
    expect(await metricsText()).toContain('projection_lag_positions{projection="listings"} 0');
    head = 1500;
    runner.checkpoint = 1200;
    Object.assign(ingestion.counters, { changed: 80, unchanged: 15, rejected: 5 });
    const text = await metricsText();
    expect(text).toContain('projection_lag_positions{projection="listings"} 300');
    expect(text).toContain('listings_ingested_snapshots_total{outcome="changed"} 80');
    expect(text).toContain('listings_ingested_snapshots_total{outcome="unchanged"} 15');
    expect(text).toContain('listings_ingested_snapshots_total{outcome="rejected"} 5');
    expect(text).toContain('outbox_pending_messages{outbox="listings_integration"} 12');
    expect(text).toContain('outbox_dead_letters_total{outbox="listings_integration"} 1');
    expect(text).toContain('outbox_publish_failures_total{outbox="listings_integration"} 2');
  });
});
