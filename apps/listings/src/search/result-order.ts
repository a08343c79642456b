/**
 * The order of `compareForOrder` over document numbers: each clause on its column, a missing
 * value (NaN) last in both directions, then the property uuid ascending, so the order is total
 * and pages neither skip nor repeat a property. Document numbers carry no order of their own.
 */
import type { OrderClause, OrderField, SortMode } from '@immo/property-criteria';

/** The columns the order fields read, by document number. */
export interface OrderColumns {
  createdAtMs: Float64Array;
  latestAdvertCreatedAtMs: Float64Array;
  updatedAtMs: Float64Array;
  price: Float64Array;
  pricePerMeter: Float64Array;
  surface: Float64Array;
}

/** The column an order field reads (`createdAt` depends on the sort mode). */
export function orderColumnName(field: OrderField, sortMode: SortMode): OrderColumnName {
  switch (field) {
    case 'createdAt':
      return sortMode === 'advert' ? 'latestAdvertCreatedAtMs' : 'createdAtMs';
    case 'updatedAt':
      return 'updatedAtMs';
    default:
      return field;
  }
}

export type OrderColumnName = keyof OrderColumns;

function columnOf(field: OrderField, sortMode: SortMode, columns: OrderColumns): Float64Array {
  switch (field) {
    case 'createdAt':
      return sortMode === 'advert' ? columns.latestAdvertCreatedAtMs : columns.createdAtMs;
    case 'updatedAt':
      return columns.updatedAtMs;
    case 'price':
      return columns.price;
    case 'pricePerMeter':
      return columns.pricePerMeter;
    case 'surface':
      return columns.surface;
  }
}

/** Negative when document `a` comes first. */
export function orderComparator(
  order: readonly OrderClause[],
  sortMode: SortMode,
  columns: OrderColumns,
  uuids: readonly string[],
): (a: number, b: number) => number {
  const values = order.map((clause) => columnOf(clause.field, sortMode, columns));
  const ascending = order.map((clause) => clause.direction === 'asc');
  const clauseCount = values.length;
  return (a, b) => {
    for (let i = 0; i < clauseCount; i++) {
      const column = values[i] as Float64Array;
      const left = column[a] as number;
      const right = column[b] as number;
      if (left === right) continue;
      // NaN is the only value unequal to itself: a missing value.
      const leftMissing = left !== left;
      const rightMissing = right !== right;
      if (leftMissing || rightMissing) {
        if (leftMissing && rightMissing) continue;
        return leftMissing ? 1 : -1;
      }
      return left < right === ascending[i] ? -1 : 1;
    }
    const leftUuid = uuids[a] as string;
    const rightUuid = uuids[b] as string;
    return leftUuid < rightUuid ? -1 : leftUuid > rightUuid ? 1 : 0;
  };
}

/**
 * A number per document that grows with the first clause: its value, negated when descending,
 * and +Infinity when missing. Sound for `TopK`: a strictly greater key means a later place, since
 * a missing value (or an infinite one, which ties with it here) is never before a finite one.
 */
export function primaryKey(order: readonly OrderClause[], sortMode: SortMode, columns: OrderColumns): ((doc: number) => number) | undefined {
  const first = order[0];
  if (first === undefined) return undefined;
  const values = columnOf(first.field, sortMode, columns);
  const sign = first.direction === 'asc' ? 1 : -1;
  return (doc) => {
    const value = values[doc] as number;
    return value === value ? sign * value : Infinity;
  };
}
