import { collectedCounter, collectedGauge, registerOutboxMetrics } from '@immo/service-kit';
import type { ListingsRuntime } from './listings-runtime';

/**
 * The listings numbers in `/metrics`, read at scrape time from where they are kept: how far the
 * projections trail the event log, snapshots ingested by outcome, and the integration outbox.
 */
export function registerListingsMetrics(runtime: Pick<ListingsRuntime, 'eventStore' | 'runner' | 'ingestion' | 'relay'>): void {
  collectedGauge({
    name: 'projection_lag_positions',
    help: 'Head of the event log minus the projection checkpoint, in log positions (events on JetStream, commit positions on EventStoreDB).',
    labelNames: ['projection'],
    read: async () => {
      const head = await runtime.eventStore.headPosition();
      const lag = head === null ? 0 : Math.max(0, head - (runtime.runner.checkpoint ?? 0));
      return [{ labels: { projection: 'listings' }, value: lag }];
    },
  });
  collectedCounter({
    name: 'listings_ingested_snapshots_total',
    help: 'Advert snapshots ingested by this instance: changed (events appended), unchanged (nothing new), rejected (invalid, or not stored: retry later).',
    labelNames: ['outcome'],
    read: () => {
      const { changed, unchanged, rejected } = runtime.ingestion.counters;
      return [
        { labels: { outcome: 'changed' }, value: changed },
        { labels: { outcome: 'unchanged' }, value: unchanged },
        { labels: { outcome: 'rejected' }, value: rejected },
      ];
    },
  });
  registerOutboxMetrics('listings_integration', runtime.relay);
}
