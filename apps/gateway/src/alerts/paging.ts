import type { Violation } from '@immo/contracts';
import { ProblemException } from '../http/problem';
import type { ParsedQuery } from '../http/query-string';

const MAX_ITEMS_PER_PAGE = 100;
const DEFAULT_ITEMS_PER_PAGE = 30;

/**
 * `page` (and `itemsPerPage` where a route takes it) of the alert listings. Other parameters
 * are named back in `X-Ignored-Parameters`, as on every collection.
 */
export function pagingOf(query: ParsedQuery, options: { itemsPerPage: boolean }): { page: number; itemsPerPage: number; ignored: string[] } {
  const violations: Violation[] = [];
  const integer = (name: string, fallback: number, max: number): number => {
    const value = query[name];
    if (value === undefined) return fallback;
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < 1 || number > max) {
      violations.push({ propertyPath: name, message: `must be an integer from 1 to ${max}` });
      return fallback;
    }
    return number;
  };
  const page = integer('page', 1, 1_000_000);
  const itemsPerPage = options.itemsPerPage ? integer('itemsPerPage', DEFAULT_ITEMS_PER_PAGE, MAX_ITEMS_PER_PAGE) : DEFAULT_ITEMS_PER_PAGE;
  if (violations.length > 0) throw ProblemException.badRequest(`Invalid query parameters: ${violations.map((v) => v.propertyPath).join(', ')}`, violations);
  const known = new Set(options.itemsPerPage ? ['page', 'itemsPerPage'] : ['page']);
  return { page, itemsPerPage, ignored: Object.keys(query).filter((name) => !known.has(name)) };
}
