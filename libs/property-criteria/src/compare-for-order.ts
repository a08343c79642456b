/**
 * The order of search results, which every search implementation must reproduce exactly (paging
 * over a different order would skip or repeat properties).
 *
 * The clauses apply in the order given; a document lacking the value of a clause comes LAST in
 * both directions (an unknown price is neither the cheapest nor the dearest); remaining ties are
 * broken by property uuid ascending, so the order is total and stable across pages.
 */
import type { PropertyDocument } from '@immo/contracts';
import { creationTimeMs, instantOf } from './creation-time';
import type { OrderClause, OrderField, SortMode } from './criteria';

function sortValue(doc: PropertyDocument, field: OrderField, sortMode: SortMode): number | null {
  switch (field) {
    case 'createdAt':
      return creationTimeMs(doc, sortMode);
    case 'updatedAt':
      return instantOf(doc.updatedAt);
    case 'price':
      return doc.price;
    case 'pricePerMeter':
      return doc.pricePerMeter;
    case 'surface':
      return doc.surface;
  }
}

const isMissing = (value: number | null): value is null => value === null || Number.isNaN(value);

/** Negative when `a` comes first. `sortMode` says which creation `order[createdAt]` reads. */
export function compareForOrder(order: readonly OrderClause[], a: PropertyDocument, b: PropertyDocument, sortMode: SortMode = 'property'): number {
  for (const { field, direction } of order) {
    const left = sortValue(a, field, sortMode);
    const right = sortValue(b, field, sortMode);
    if (isMissing(left) || isMissing(right)) {
      if (isMissing(left) && isMissing(right)) continue;
      return isMissing(left) ? 1 : -1;
    }
    if (left !== right) {
      const ascending = left < right ? -1 : 1;
      return direction === 'asc' ? ascending : -ascending;
    }
  }
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}
