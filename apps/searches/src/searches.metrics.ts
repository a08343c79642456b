import type { EventStore } from '@immo/event-store';
import { collectedCounter, collectedGauge, registerOutboxMetrics } from '@immo/service-kit';
import type { AlertMatcher } from './matching/alert-matcher';
import type { SearchesProjection } from './projection/searches-projection';

/**
 * The searches numbers in `/metrics`, read at scrape time from where they are kept: how far the
 * accounts and searches projection trails its log, the alert matcher's counts, its outbox.
 */
export function registerSearchesMetrics(parts: {
  eventStore: Pick<EventStore, 'headPosition'>;
  projection: Pick<SearchesProjection, 'checkpoint'>;
  matcher: Pick<AlertMatcher, 'counters' | 'outbox'>;
}): void {
  const { eventStore, projection, matcher } = parts;
  collectedGauge({
    name: 'projection_lag_positions',
    help: 'Head of the event log minus the projection checkpoint, in log positions (events on JetStream, commit positions on EventStoreDB).',
    labelNames: ['projection'],
    read: async () => {
      const head = await eventStore.headPosition();
      const lag = head === null ? 0 : Math.max(0, head - (projection.checkpoint ?? 0));
      return [{ labels: { projection: 'searches' }, value: lag }];
    },
  });
  collectedCounter({
    name: 'alert_matcher_events_total',
    help: 'Listings integration events the alert matcher read: handled (tested against the saved searches), rejected (not valid, acknowledged and dropped) or out_of_order (not newer than the newest applied for its property: dropped).',
    labelNames: ['outcome'],
    read: () => [
      { labels: { outcome: 'handled' }, value: matcher.counters.events },
      { labels: { outcome: 'rejected' }, value: matcher.counters.rejected },
      { labels: { outcome: 'out_of_order' }, value: matcher.counters.outOfOrder },
    ],
  });
  collectedCounter({
    name: 'alert_matcher_matches_created_total',
    help: 'Matches the alert matcher created (a property meeting a saved search for the first time).',
    read: () => matcher.counters.matches,
  });
  collectedCounter({
    name: 'alert_matcher_notifications_decided_total',
    help: 'Notifications the alert matcher committed to its outbox for the notifier.',
    read: () => matcher.counters.notifications,
  });
  registerOutboxMetrics('alert_notifications', matcher.outbox);
}
