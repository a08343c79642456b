/**
 * The creation instant that `fromDate`/`toDate` and `order[createdAt]` read, which depends on the
 * sort mode (spec, `sortMode`): the property's own creation, or the creation of its most recent
 * advert, so that a property re-advertised yesterday counts as new in `advert` mode.
 */
import type { PropertyDocument } from '@immo/contracts';
import type { SortMode } from './criteria';

/** Epoch milliseconds, or null when the document has no such instant (no advert, unreadable date). */
export function creationTimeMs(doc: PropertyDocument, sortMode: SortMode): number | null {
  if (sortMode === 'property') return instantOf(doc.createdAt);
  let latest: number | null = null;
  for (const advert of doc.adverts) {
    const created = instantOf(advert.createdAt);
    if (created !== null && (latest === null || created > latest)) latest = created;
  }
  return latest;
}

export function instantOf(timestamp: string | null): number | null {
  if (timestamp === null) return null;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? null : ms;
}
