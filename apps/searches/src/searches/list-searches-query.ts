/**
 * The query of `GET /searches` (spec): `notificationEnabled`, `title` (case-insensitive substring),
 * `order[title]`, `page`, and the original service's later `initiatedFromDashboard`. Unknown parameters are ignored and named, as on the property search.
 */
import type { Violation } from '@immo/contracts';

export interface ListSearchesQuery {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  page: number;
  ignored: string[];
}

const KNOWN = new Set(['notificationEnabled', 'initiatedFromDashboard', 'title', 'order', 'page']);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A boolean filter: `true`/`1` or `false`/`0`; absent or empty: no filter. */
function flagOf(query: Record<string, unknown>, name: string, violations: Violation[]): boolean | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === '1' || value === true) return true;
  if (value === 'false' || value === '0' || value === false) return false;
  violations.push({ propertyPath: name, message: 'must be true or false' });
  return undefined;
}

export function listSearchesQuery(query: Record<string, unknown>): { ok: true; value: ListSearchesQuery } | { ok: false; violations: Violation[] } {
  const violations: Violation[] = [];
  const filter: Record<string, unknown> = {};
  const ignored = Object.keys(query).filter((name) => !KNOWN.has(name));

  const enabled = flagOf(query, 'notificationEnabled', violations);
  if (enabled !== undefined) filter['notificationEnabled'] = enabled;
  // Searches stored before the field was read have none: they were not made from a dashboard.
  const fromDashboard = flagOf(query, 'initiatedFromDashboard', violations);
  if (fromDashboard !== undefined) filter['state.spec.initiatedFromDashboard'] = fromDashboard ? true : { $ne: true };

  const title = query['title'];
  if (title !== undefined && !(typeof title === 'string' && title.trim() === '')) {
    if (typeof title !== 'string' || title.length > 200) violations.push({ propertyPath: 'title', message: 'must be a text value of at most 200 characters' });
    else filter['titleFolded'] = { $regex: escapeRegex(title.trim().toLowerCase()) };
  }

  // Newest first unless the title order is asked; the id breaks ties so pages never overlap.
  let sort: Record<string, 1 | -1> = { createdAt: -1, _id: 1 };
  const order = query['order'];
  if (order !== undefined) {
    const direction = typeof order === 'object' && order !== null ? (order as Record<string, unknown>)['title'] : undefined;
    const others = typeof order === 'object' && order !== null ? Object.keys(order).filter((key) => key !== 'title') : ['order'];
    ignored.push(...others.map((key) => (key === 'order' ? 'order' : `order[${key}]`)));
    if (direction === 'asc' || direction === 'desc') sort = { titleFolded: direction === 'asc' ? 1 : -1, _id: 1 };
    else if (direction !== undefined) violations.push({ propertyPath: 'order[title]', message: 'must be asc or desc' });
  }

  let page = 1;
  const rawPage = query['page'];
  if (rawPage !== undefined && rawPage !== '') {
    page = typeof rawPage === 'string' && /^\d+$/.test(rawPage) ? Number(rawPage) : Number.NaN;
    if (!Number.isInteger(page) || page < 1 || page > 100_000) violations.push({ propertyPath: 'page', message: 'must be an integer from 1 to 100000' });
  }

  return violations.length > 0 ? { ok: false, violations } : { ok: true, value: { filter, sort, page, ignored } };
}
