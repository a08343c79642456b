/**
 * Paging and sorting parameters: `page`, `itemsPerPage`, `order[<field>]`, `sortMode`.
 */
import { isPlainObject } from '@immo/runtime';
import { DEFAULT_ORDER, type OrderClause, type OrderField, type SortDirection, type SortMode } from './criteria';
import { MAX_ITEMS_PER_PAGE } from './limits';
import type { ParameterReader } from './parameter-reader';
import { integerValue, isBlank, isScalar, numberValue, readValue, wordEnumValue } from './query-values';

const directionValue = wordEnumValue<SortDirection>(['asc', 'desc']);
const sortModeValue = wordEnumValue<SortMode>(['property', 'advert']);

export interface Paging {
  page: number;
  itemsPerPage: number;
}

export function readPaging(reader: ParameterReader): Paging {
  let page = reader.scalar('page', integerValue) ?? 1;
  if (page < 1) {
    reader.fail('page', 'must be at least 1');
    page = 1;
  }
  // Read as a number first: any integer above the maximum is capped, even one too large to be exact.
  let itemsPerPage = reader.scalar('itemsPerPage', numberValue) ?? reader.parameters.defaultItemsPerPage;
  if (!Number.isInteger(itemsPerPage)) {
    reader.fail('itemsPerPage', 'must be an integer');
    itemsPerPage = reader.parameters.defaultItemsPerPage;
  } else if (itemsPerPage < 0) {
    reader.fail('itemsPerPage', 'must be at least 0');
    itemsPerPage = reader.parameters.defaultItemsPerPage;
  }
  // The spec states a maximum, not an error: asking for more simply gets the most there is.
  return { page, itemsPerPage: Math.min(itemsPerPage, MAX_ITEMS_PER_PAGE) };
}

export function readSortMode(reader: ParameterReader): SortMode {
  return reader.scalar('sortMode', sortModeValue) ?? 'property';
}

// Fresh objects each time: criteria are plain data a caller may keep and change.
const defaultOrder = (): OrderClause[] => DEFAULT_ORDER.map((clause) => ({ ...clause }));

export interface ParsedOrder {
  order: OrderClause[];
  /** `order[<key>]` names this endpoint does not sort by, reported like unknown parameters. */
  ignored: string[];
}

/** Clauses in the order the caller wrote them (qs keeps the key order of the query string). */
export function readOrder(reader: ParameterReader): ParsedOrder {
  const raw = reader.raw('order');
  const ignored: string[] = [];
  if (raw === undefined) return { order: defaultOrder(), ignored };
  if (!isPlainObject(raw)) {
    reader.fail('order', 'must be given as order[<field>]=asc|desc');
    return { order: defaultOrder(), ignored };
  }
  const order: OrderClause[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const path = `order[${key}]`;
    if (!(reader.parameters.orderFields as readonly string[]).includes(key)) {
      ignored.push(path);
      continue;
    }
    if (isBlank(value)) continue;
    if (!isScalar(value)) {
      reader.fail(path, 'must be a single value');
      continue;
    }
    const direction = readValue(directionValue, value);
    if (direction.ok) order.push({ field: key as OrderField, direction: direction.value });
    else reader.fail(path, direction.message);
  }
  return { order: order.length > 0 ? order : defaultOrder(), ignored };
}
