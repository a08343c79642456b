/**
 * Location autocomplete (`/public/location-autocomplete`) over cities and departments.
 *
 * Index: one sorted array of normalised keys (see text-normalise.ts) searched by binary search;
 * every key starting with the query is a hit. Keys per city: its official name, its name without
 * the article ("havre" for Le Havre) and, at lower rank, the name from each later word on
 * ("etienne" finds Saint-Étienne). Departments get the same keys plus their code. Postal codes are
 * a second sorted array, used when the query is a number.
 *
 * Ranking, best first:
 * 0. the whole name equals the query (or the name without article does),
 * 1. the whole name starts with the query,
 * 2. a later word of the name starts the query as a whole word sequence ending there,
 * 3. a later word of the name starts with the query;
 * then larger population (a department counts the population of its communes), then cities before
 * departments, then name. Numeric queries (and Corsican codes such as "2A") list, in this order:
 * the department with that code, the city with that INSEE code, cities with that exact postal code,
 * departments whose code starts with it, then postal-code prefixes in code order ("750" → 75001,
 * 75002, …).
 *
 * Communes that group arrondissements (Paris, Lyon, Marseille) are not listed under postal codes:
 * their arrondissements own those codes and are the precise answer; they remain found by name.
 *
 * Results are capped at {@link AUTOCOMPLETE_DEFAULT_LIMIT} (at most {@link AUTOCOMPLETE_MAX_LIMIT}).
 * `excludedCitiesIds` / `excludedDepartmentsIds` take IRIs (`/cities/75056`, `/departments/75`) or
 * bare ids; those places never appear.
 */
import type { CityDirectory } from './city-directory';
import { type LocationSuggestion, toCitySuggestion, toDepartmentSuggestion } from './city-model';
import { GeoValidationError } from './domain-errors';
import { normaliseName, normaliseQuery, tokens } from './text-normalise';

export const AUTOCOMPLETE_DEFAULT_LIMIT = 10;
export const AUTOCOMPLETE_MAX_LIMIT = 50;
/** Longer input is cut: no French place name comes close, and it bounds the work per request. */
export const AUTOCOMPLETE_MAX_QUERY_LENGTH = 100;

export interface AutocompleteQuery {
  /** The search term (`query` or `q` in the request). */
  query: string;
  excludedCitiesIds?: ReadonlyArray<string | number>;
  excludedDepartmentsIds?: ReadonlyArray<string | number>;
  limit?: number;
}

const TIER_EXACT = 0;
const TIER_PREFIX = 1;
const TIER_INNER_WORDS = 2;
const TIER_INNER_PREFIX = 3;
const NO_TIER = 255;

interface Target {
  kind: 'city' | 'department';
  /** City id or department id. */
  id: number;
  population: number;
  sortName: string;
  build: () => LocationSuggestion;
}

// Words that start too many suffixes to be useful on their own ("de …", "sur …").
const LINK_WORDS = new Set(['de', 'du', 'des', 'la', 'le', 'les', 'l', 'd', 'en', 'et', 'sur', 'sous', 'aux', 'au', 'a', 'les', 'lez', 'pres']);

const ABBREVIATION_KEYS = new Set(['st', 'ste', 'sts', 'stes']);

function lowerBound(sorted: ReadonlyArray<string>, value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Id in an IRI such as `/cities/75056` (or a bare id). An IRI of another collection yields null,
 * so a city IRI passed among excluded departments excludes nothing.
 */
export function idFromIri(value: string | number, collection: 'cities' | 'departments'): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  const match = new RegExp(`^\\s*(?:/${collection}/)?(\\d+)\\s*$`).exec(value);
  return match?.[1] ? Number(match[1]) : null;
}

export class AutocompleteIndex {
  private readonly targets: Target[] = [];
  private readonly keys: string[];
  private readonly keyTargets: Int32Array;
  private readonly keyInner: Uint8Array;
  private readonly postalCodes: string[];
  private readonly postalTargets: Int32Array;
  private readonly departmentTargets: Array<{ code: string; target: number }> = [];
  private readonly targetByInsee = new Map<string, number>();
  // Per-query scratch space: best tier per target, reset through the list of touched targets.
  private readonly bestTier: Uint8Array;
  private readonly heavyPrefixCache = new Map<string, RankedPage>();

  constructor(directory: CityDirectory) {
    const rawKeys: Array<{ key: string; target: number; inner: boolean }> = [];
    const postal: Array<{ code: string; target: number; population: number }> = [];
    const addKeys = (name: string, alternate: string | null, target: number): void => {
      const key = normaliseName(name);
      rawKeys.push({ key, target, inner: false });
      if (alternate !== null) {
        const alternateKey = normaliseName(alternate);
        if (alternateKey !== key && alternateKey.length > 0) rawKeys.push({ key: alternateKey, target, inner: false });
      }
      const words = key.split(' ');
      for (let i = 1; i < words.length; i++) {
        const word = words[i] as string;
        if (LINK_WORDS.has(word) || /^\d/.test(word)) continue;
        rawKeys.push({ key: words.slice(i).join(' '), target, inner: true });
      }
    };

    for (const entry of directory.entries) {
      const city = entry.city;
      const target = this.targets.length;
      this.targets.push({
        kind: 'city',
        id: city.id,
        population: entry.record.population,
        sortName: entry.originalNameKey,
        build: () => toCitySuggestion(city),
      });
      addKeys(city.originalName, city.name, target);
      this.targetByInsee.set(city.insee, target);
      if (entry.children.length === 0) {
        for (const code of entry.record.postalCodes) postal.push({ code, target, population: entry.record.population });
      }
    }
    for (const department of directory.departments) {
      const target = this.targets.length;
      this.targets.push({
        kind: 'department',
        id: department.id,
        population: department.population,
        sortName: normaliseName(department.name),
        build: () => toDepartmentSuggestion(department),
      });
      addKeys(department.name, null, target);
      this.departmentTargets.push({ code: department.code.toLowerCase(), target });
    }

    rawKeys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.target - b.target));
    this.keys = rawKeys.map((item) => item.key);
    this.keyTargets = Int32Array.from(rawKeys, (item) => item.target);
    this.keyInner = Uint8Array.from(rawKeys, (item) => (item.inner ? 1 : 0));

    postal.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : b.population - a.population));
    this.postalCodes = postal.map((item) => item.code);
    this.postalTargets = Int32Array.from(postal, (item) => item.target);
    this.bestTier = new Uint8Array(this.targets.length).fill(NO_TIER);
    this.precomputeHeavyPrefixes();
  }

  get size(): number {
    return this.keys.length;
  }

  search(request: AutocompleteQuery): LocationSuggestion[] {
    const limit = request.limit ?? AUTOCOMPLETE_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > AUTOCOMPLETE_MAX_LIMIT) {
      throw new GeoValidationError('limit', `must be an integer between 1 and ${AUTOCOMPLETE_MAX_LIMIT}`);
    }
    const raw = (typeof request.query === 'string' ? request.query : '').slice(0, AUTOCOMPLETE_MAX_QUERY_LENGTH).trim();
    if (raw.length === 0) return [];
    const excludedCities = new Set((request.excludedCitiesIds ?? []).map((iri) => idFromIri(iri, 'cities')).filter((id): id is number => id !== null));
    const excludedDepartments = new Set(
      (request.excludedDepartmentsIds ?? []).map((iri) => idFromIri(iri, 'departments')).filter((id): id is number => id !== null),
    );
    const allowed = (target: Target): boolean =>
      !(target.kind === 'city' ? excludedCities.has(target.id) : excludedDepartments.has(target.id));

    const ranked = /^(\d+|2[ab]\d*)$/i.test(raw) ? this.searchCode(raw.toLowerCase(), limit, allowed) : this.searchText(raw, limit, allowed);
    return ranked.map((target) => target.build());
  }

  private searchCode(code: string, limit: number, allowed: (target: Target) => boolean): Target[] {
    const results: Target[] = [];
    const seen = new Set<number>();
    const take = (index: number): void => {
      const target = this.targets[index];
      if (!target || seen.has(index) || !allowed(target)) return;
      seen.add(index);
      results.push(target);
    };
    // A lone digit also means the department written with a leading zero ("1" → Ain, 01).
    const departmentCodes = new Set([code, code.padStart(2, '0')]);
    for (const department of this.departmentTargets) if (departmentCodes.has(department.code)) take(department.target);
    const byInsee = this.targetByInsee.get(code.toUpperCase());
    if (byInsee !== undefined) take(byInsee);
    const first = lowerBound(this.postalCodes, code);
    for (let i = first; i < this.postalCodes.length && this.postalCodes[i] === code; i++) take(this.postalTargets[i] as number);
    for (const department of this.departmentTargets) if (department.code.startsWith(code)) take(department.target);
    for (let i = first; i < this.postalCodes.length && results.length < limit; i++) {
      if (!(this.postalCodes[i] as string).startsWith(code)) break;
      take(this.postalTargets[i] as number);
    }
    return results.slice(0, limit);
  }

  private variantsOf(raw: string): Variant[] {
    // Each variant is a key prefix; `exactAllowed` is false when the variant completes a word the
    // user may still be typing ("st" read as "saint" must not outrank "Strasbourg" as an exact hit).
    const words = tokens(raw);
    const last = words[words.length - 1];
    const endsInsideAbbreviation = last !== undefined && ABBREVIATION_KEYS.has(last) && /[\p{L}\p{N}]$/u.test(raw);
    const variants: Variant[] = [{ prefix: normaliseQuery(raw), exactAllowed: !endsInsideAbbreviation }];
    if (endsInsideAbbreviation) {
      const head = normaliseName(words.slice(0, -1).join(' '));
      variants.push({ prefix: head.length > 0 ? `${head} ${last}` : last, exactAllowed: true });
    }
    return variants.filter((variant) => variant.prefix.trim().length > 0);
  }

  private searchText(raw: string, limit: number, allowed: (target: Target) => boolean): Target[] {
    const variants = this.variantsOf(raw);
    const cached = this.heavyPrefixCache.get(signature(variants));
    if (cached) {
      const kept = cached.targets.filter(allowed);
      if (kept.length >= limit || !cached.truncated) return kept.slice(0, limit);
    }
    return this.rank(variants, limit, allowed).targets;
  }

  /** Best `limit` targets for the variants, and whether more allowed hits were left out. */
  private rank(variants: ReadonlyArray<Variant>, limit: number, allowed: (target: Target) => boolean): RankedPage {
    const touched: number[] = [];
    for (const { prefix, exactAllowed } of variants) {
      const exact = prefix.trimEnd();
      for (let i = lowerBound(this.keys, prefix); i < this.keys.length; i++) {
        const key = this.keys[i] as string;
        if (!key.startsWith(prefix)) break;
        const target = this.keyTargets[i] as number;
        const inner = this.keyInner[i] === 1;
        const whole = exactAllowed && key === exact;
        const tier = inner
          ? whole || (exactAllowed && key.startsWith(`${exact} `))
            ? TIER_INNER_WORDS
            : TIER_INNER_PREFIX
          : whole
            ? TIER_EXACT
            : TIER_PREFIX;
        const previous = this.bestTier[target] as number;
        if (previous === NO_TIER) touched.push(target);
        if (tier < previous) this.bestTier[target] = tier;
      }
    }

    // Bounded insertion keeps the cost linear in the number of hits: short prefixes hit thousands.
    const top: Ranked[] = [];
    let truncated = false;
    for (const index of touched) {
      const tier = this.bestTier[index] as number;
      this.bestTier[index] = NO_TIER;
      const target = this.targets[index];
      if (!target || !allowed(target)) continue;
      const candidate = { target, tier };
      if (top.length === limit) {
        truncated = true;
        const worst = top[top.length - 1];
        if (worst && compareRanked(candidate, worst) >= 0) continue;
        top.pop();
      }
      let position = top.length;
      while (position > 0 && compareRanked(candidate, top[position - 1] as Ranked) < 0) position--;
      top.splice(position, 0, candidate);
    }
    return { targets: top.map((item) => item.target), truncated };
  }

  /**
   * Ranks once, at build time, the prefixes whose key range is long (one or two letters, "saint",
   * "st"...): those are the slow queries and also the most frequent, since people type them first.
   * A query with exclusions still uses the cache unless the exclusions eat into the cached depth.
   */
  private precomputeHeavyPrefixes(): void {
    const everyone = (): boolean => true;
    const store = (variants: Variant[]): void => {
      const key = signature(variants);
      if (!this.heavyPrefixCache.has(key)) this.heavyPrefixCache.set(key, this.rank(variants, CACHED_DEPTH, everyone));
    };
    const stack: Array<{ prefix: string; low: number; high: number }> = [{ prefix: '', low: 0, high: this.keys.length }];
    while (stack.length > 0) {
      const { prefix, low, high } = stack.pop() as { prefix: string; low: number; high: number };
      if (high - low <= HEAVY_PREFIX_KEYS) continue;
      if (prefix.length > 0) store([{ prefix, exactAllowed: true }]);
      // Keys sharing the next character are contiguous in the sorted array.
      let i = low;
      while (i < high && (this.keys[i] as string).length === prefix.length) i++;
      while (i < high) {
        const next = (this.keys[i] as string)[prefix.length] as string;
        let j = i;
        while (j < high && (this.keys[j] as string)[prefix.length] === next) j++;
        stack.push({ prefix: prefix + next, low: i, high: j });
        i = j;
      }
    }
    for (const abbreviation of ABBREVIATION_KEYS) store(this.variantsOf(abbreviation));
  }
}

interface Variant {
  prefix: string;
  exactAllowed: boolean;
}

interface Ranked {
  target: Target;
  tier: number;
}

interface RankedPage {
  targets: Target[];
  truncated: boolean;
}

/** Prefixes matching more keys than this are ranked at build time. */
const HEAVY_PREFIX_KEYS = 800;
/** Cached ranking depth: the largest limit plus room for a few exclusions. */
const CACHED_DEPTH = 64;

function signature(variants: ReadonlyArray<Variant>): string {
  return variants.map((variant) => `${variant.exactAllowed ? '=' : '~'}${variant.prefix}`).join('|');
}

function compareRanked(a: { target: Target; tier: number }, b: { target: Target; tier: number }): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.target.population !== b.target.population) return b.target.population - a.target.population;
  if (a.target.kind !== b.target.kind) return a.target.kind === 'city' ? -1 : 1;
  if (a.target.sortName !== b.target.sortName) return a.target.sortName < b.target.sortName ? -1 : 1;
  return a.target.id - b.target.id;
}

export function buildAutocompleteIndex(directory: CityDirectory): AutocompleteIndex {
  return new AutocompleteIndex(directory);
}

/** Convenience wrapper: suggestions for a query against a prebuilt index. */
export function autocomplete(index: AutocompleteIndex, request: AutocompleteQuery): LocationSuggestion[] {
  return index.search(request);
}
