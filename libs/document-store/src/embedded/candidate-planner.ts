/**
 * Picks the smallest candidate id set a filter can be answered from, using hash indexes on
 * equality and `$in` conditions. Conditions under `$and` narrow like top-level ones; an `$or`
 * narrows only when every branch does (the union of the branches). Anything else returns null,
 * meaning a full scan.
 */
import type { Filter } from '../document-store.port';
import { isPlainObject } from '../document-paths';
import { type IndexKey, equalityKeys } from './hash-index';

export interface CandidatePlan {
  ids: ReadonlySet<string>;
  /** Human-readable description of the indexes used, for stats and debugging. */
  via: string;
}

/** Answers the ids holding any of the keys at the path, or null when the path has no index. */
export type IndexLookup = (path: string, keys: readonly IndexKey[]) => ReadonlySet<string> | null;

export function planCandidates(filter: Filter, lookup: IndexLookup): CandidatePlan | null {
  let best: CandidatePlan | null = null;
  const consider = (plan: CandidatePlan | null): void => {
    if (plan && (best === null || plan.ids.size < best.ids.size)) best = plan;
  };
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(condition)) {
      for (const sub of condition) if (isPlainObject(sub)) consider(planCandidates(sub, lookup));
    } else if (key === '$or' && Array.isArray(condition) && condition.length > 0) {
      consider(planUnion(condition, lookup));
    } else if (!key.startsWith('$')) {
      const keys = equalityKeys(condition);
      const ids = keys ? lookup(key, keys) : null;
      if (ids) consider({ ids, via: key });
    }
  }
  return best;
}

function planUnion(branches: unknown[], lookup: IndexLookup): CandidatePlan | null {
  const plans: CandidatePlan[] = [];
  for (const branch of branches) {
    const plan = isPlainObject(branch) ? planCandidates(branch, lookup) : null;
    if (!plan) return null;
    plans.push(plan);
  }
  const ids = new Set<string>();
  for (const plan of plans) for (const id of plan.ids) ids.add(id);
  return { ids, via: `$or(${plans.map((p) => p.via).join(', ')})` };
}
