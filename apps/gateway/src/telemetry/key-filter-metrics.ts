import { collectedCounter, collectedGauge } from '@immo/service-kit';
import type { IssuedKeyIds } from '../auth/issued-key-ids';

/**
 * `gateway_key_lookups_avoided_total`: well-formed keys refused because their id was never issued,
 * each a request to the searches service saved; `gateway_issued_key_ids`: the ids known here,
 * absent while they are being loaded (every well-formed key is looked up meanwhile). Read at
 * scrape time from what `IssuedKeyIds` counts.
 */
export function registerKeyFilterMetrics(ids: IssuedKeyIds): void {
  collectedCounter({
    name: 'gateway_key_lookups_avoided_total',
    help: 'Account keys refused without asking the searches service, their id never having been issued.',
    read: () => ids.lookupsAvoided,
  });
  collectedGauge({
    name: 'gateway_issued_key_ids',
    help: 'Issued account key ids this gateway knows; absent while it loads them (keys are then looked up).',
    read: () => (ids.known ? ids.size : null),
  });
}
