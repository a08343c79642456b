/**
 * In-memory search over property search rows, giving exactly what filtering every document with
 * `matches` and sorting with `compareForOrder` gives (an equivalence property test holds it to
 * that), in a few milliseconds for 200,000 properties.
 *
 * Structures (by document number, a dense index a property keeps while it exists):
 * - columns: property-level numbers and instants in Float64Arrays, NaN for a missing value;
 * - flags: one bitset per enum value or boolean (transaction and property type, furnished,
 *   expired, located, incoherent price), per advert site and publisher type, and per advert-level
 *   value some advert has (energy and emission letters, virtual tour, fees payer);
 * - places: each distinct city's keys (ids, INSEE codes, postal codes, department) once, with the
 *   sorted list of its documents;
 * - a grid of 0.05° cells, each with the sorted list of the documents located in it;
 * - advert and event rows: typed-array columns in slabs, one run of rows per document;
 * - text: a dictionary of tokens (id by token, plus the sorted order, so that a prefix is a range),
 *   the documents holding each token (a sorted list, or a bitset once the token is in more than one
 *   document in 32), and each document's token sequences, varint-encoded, for phrases.
 *
 * Query plan (query-plan.ts): bitset operations on the flags, places, excluded uuids and grid
 * cells; then one pass over the survivors checking columns (among them each property's lowest and
 * highest live advert price), advert rows (one advert meeting every advert-level criterion; a live
 * advert priced within `advertPrice…` when the two columns cannot tell), event rows and the exact distance or point-in-ring test; then the
 * expressions on what is left. The page of a one-clause order over many matches is found by
 * walking that column's presorted order (presorted-order.ts) until it is full; otherwise with a
 * bounded heap over the matches (O(n log k) for k = page × itemsPerPage), where most matches lose
 * to the heap's worst on the first clause's value alone, read straight from its column.
 */
import { SIMILARITY, type OrderClause, type PropertyCriteria, type SortMode } from '@immo/property-criteria';
import { Bitset, withScratchBitsets } from './bitset';
import { FLAG, siteCategoriesIn } from './flag-sets';
import { radiusBox } from './geo-area';
import { PropertyStore, type PropertyStoreState } from './property-store';
import { matchingDocs, narrowByLiveAdvertPrice, retainWithinBounds } from './query-plan';
import { orderColumnName, orderComparator, primaryKey } from './result-order';
import type { SearchPlace, SearchRow } from './search-row';
import { isSimilar, ORDER_FIELD_VALUE, similarBase, similarityScore, type SimilarBase } from './similar-properties';
import { TopK } from './top-k';

export interface SearchResult {
  /** Every matching property, whatever the page. */
  total: number;
  /** Uuids of the requested page, in the requested order. */
  ids: string[];
}

/** What statistics (price per m²) and similar-property searches read of one match. */
export interface IndexedProperty {
  uuid: string;
  transactionType: number;
  propertyType: number;
  price: number | null;
  pricePerMeter: number | null;
  surface: number | null;
  landSurface: number | null;
  room: number | null;
  bedroom: number | null;
  /** The creation the criteria's sort mode reads (the property's, or its latest advert's). */
  createdAtMs: number | null;
  updatedAtMs: number | null;
  location: { lat: number; lon: number } | null;
  /** The city's own id and INSEE code (an arrondissement's, not its commune's); null without a city. */
  cityId: number | null;
  inseeCode: string | null;
  departmentId: number | null;
}

export class PropertySearchIndex {
  private store = new PropertyStore();

  get size(): number {
    return this.store.size;
  }

  has(uuid: string): boolean {
    return this.store.docOf(uuid) !== undefined;
  }

  /** Adds the property, or replaces everything the index holds about it. */
  upsert(row: SearchRow): void {
    this.store.upsert(row);
  }

  remove(uuid: string): void {
    this.store.remove(uuid);
  }

  /** Everything the index holds, as typed arrays and plain values, for a snapshot; not a copy. */
  exportState(): PropertyStoreState {
    return this.store.exportState();
  }

  /** The index `exportState` gave (the state is taken over, not copied). */
  static fromState(state: PropertyStoreState): PropertySearchIndex {
    const index = new PropertySearchIndex();
    index.store.importState(state);
    return index;
  }

  /** Takes over the contents of another index (a snapshot loaded beside this one). */
  replaceWith(other: PropertySearchIndex): void {
    this.store = other.store;
  }

  /** Forgets every property, as before a rebuild from scratch. */
  clear(): void {
    this.store = new PropertyStore();
  }

  /** `GET /site_categories`: the categories of the sites the indexed adverts come from. */
  siteCategories(): string[] {
    return siteCategoriesIn(this.store.flags);
  }

  search(criteria: PropertyCriteria): SearchResult {
    return withScratchBitsets(() => this.searchWithin(criteria));
  }

  private searchWithin(criteria: PropertyCriteria): SearchResult {
    const matches = matchingDocs(this.store, criteria);
    const total = matches.count();
    const offset = (criteria.page - 1) * criteria.itemsPerPage;
    if (criteria.itemsPerPage === 0 || offset >= total) return { total, ids: [] };
    const ranked = this.ranked(matches, criteria, Math.min(offset + criteria.itemsPerPage, total), total);
    return { total, ids: ranked.slice(offset).map((doc) => this.store.uuids[doc] as string) };
  }

  /**
   * The properties similar to one (see similar-properties.ts): the total, and the page's uuids in
   * the client's order clauses first, then by score, then by uuid. Works on document numbers: the
   * commune and radius candidates are one bitset narrowed by the base, each survivor is read into
   * one reused view for the rules, and only a page's worth is kept ranked. Null when the property is not indexed.
   */
  similar(uuid: string, criteria: PropertyCriteria, order: readonly OrderClause[]): SearchResult | null {
    return withScratchBitsets(() => this.similarWithin(uuid, criteria, order));
  }

  private similarWithin(uuid: string, criteria: PropertyCriteria, order: readonly OrderClause[]): SearchResult | null {
    const targetDoc = this.store.docOf(uuid);
    if (targetDoc === undefined) return null;
    const target = this.indexedProperty(targetDoc, 'property');
    // A similar property is in the target's commune or radius (`isSimilar`): those two sparse
    // lists, narrowed by the base's flags and ranges, leave a few hundred documents to read, where
    // two whole-collection searches (as the collection endpoint runs them) cost several times more.
    const candidates = this.store.emptyQuerySet();
    if (target.cityId !== null) this.store.places.collectCity(target.cityId, candidates);
    if (target.location !== null) this.store.grid.collect(radiusBox(target.location, SIMILARITY.radiusKm), candidates);
    this.narrowToBase(candidates, similarBase(target, criteria));

    const scores = new Map<number, number>();
    const view = this.reusableView();
    candidates.forEach((doc) => {
      const candidate = this.readInto(view, doc, 'property');
      if (isSimilar(target, candidate)) scores.set(doc, similarityScore(target, candidate));
    });
    const total = scores.size;
    const first = (criteria.page - 1) * criteria.itemsPerPage;
    const count = Math.min(first + criteria.itemsPerPage, total);
    if (criteria.itemsPerPage === 0 || first >= total) return { total, ids: [] };
    const top = new TopK(count, this.similarOrder(order, scores));
    for (const doc of scores.keys()) top.offer(doc);
    return { total, ids: top.sorted().slice(first).map((doc) => this.store.uuids[doc] as string) };
  }

  /** Keeps the candidates `matches(similarBaseCriteria(base), document)` accepts. */
  private narrowToBase(candidates: Bitset, base: SimilarBase): void {
    const { columns, flags } = this.store;
    candidates.and(flags.get(FLAG.transactionType(base.transactionType)));
    candidates.and(flags.get(FLAG.propertyType(base.propertyType)));
    if (base.withCoherentPrice) candidates.andNot(flags.get(FLAG.incoherentPrice));
    retainWithinBounds(candidates, columns.price, base.budget.min, base.budget.max);
    retainWithinBounds(candidates, columns.createdAtMs, base.date.from, base.date.to);
    const livePriceCheck = narrowByLiveAdvertPrice(this.store, candidates, base.advertPrice);
    if (livePriceCheck !== null) candidates.retain(livePriceCheck);
  }

  /** The client's clauses (missing values last), then the score, then the uuid: `rankSimilar`'s order. */
  private similarOrder(order: readonly OrderClause[], scores: ReadonlyMap<number, number>): (a: number, b: number) => number {
    const views = [this.reusableView(), this.reusableView()] as const;
    const { uuids } = this.store;
    return (a, b) => {
      if (order.length > 0) {
        const left = this.readInto(views[0], a, 'property');
        const right = this.readInto(views[1], b, 'property');
        for (const clause of order) {
          const x = ORDER_FIELD_VALUE[clause.field](left);
          const y = ORDER_FIELD_VALUE[clause.field](right);
          if (x === y) continue;
          if (x === null) return 1;
          if (y === null) return -1;
          return clause.direction === 'asc' ? x - y : y - x;
        }
      }
      const scoreGap = (scores.get(a) as number) - (scores.get(b) as number);
      if (scoreGap !== 0) return scoreGap;
      const l = uuids[a] as string;
      const r = uuids[b] as string;
      return l < r ? -1 : l > r ? 1 : 0;
    };
  }

  /** An empty view for `readInto`: a search reading many documents fills one over and over. */
  private reusableView(): IndexedProperty {
    return {
      uuid: '',
      transactionType: 0,
      propertyType: 0,
      price: null,
      pricePerMeter: null,
      surface: null,
      landSurface: null,
      room: null,
      bedroom: null,
      createdAtMs: null,
      updatedAtMs: null,
      location: null,
      cityId: null,
      inseeCode: null,
      departmentId: null,
    };
  }

  /** What the index holds of a document, written into `view` (no allocation but a first location). */
  private readInto(view: IndexedProperty, doc: number, sortMode: SortMode): IndexedProperty {
    const { columns } = this.store;
    const place: SearchPlace | null = this.store.places.placeOf(doc);
    const lat = columns.lat[doc] as number;
    const lon = columns.lon[doc] as number;
    const mutable = view as { -readonly [K in keyof IndexedProperty]: IndexedProperty[K] };
    mutable.uuid = this.store.uuids[doc] as string;
    mutable.transactionType = columns.transactionType[doc] as number;
    mutable.propertyType = columns.propertyType[doc] as number;
    mutable.price = orNull(columns.price[doc]);
    mutable.pricePerMeter = orNull(columns.pricePerMeter[doc]);
    mutable.surface = orNull(columns.surface[doc]);
    mutable.landSurface = orNull(columns.landSurface[doc]);
    mutable.room = orNull(columns.room[doc]);
    mutable.bedroom = orNull(columns.bedroom[doc]);
    mutable.createdAtMs = orNull(sortMode === 'advert' ? columns.latestAdvertCreatedAtMs[doc] : columns.createdAtMs[doc]);
    mutable.updatedAtMs = orNull(columns.updatedAtMs[doc]);
    if (Number.isNaN(lat) || Number.isNaN(lon)) mutable.location = null;
    else if (mutable.location === null) mutable.location = { lat, lon };
    else {
      mutable.location.lat = lat;
      mutable.location.lon = lon;
    }
    mutable.cityId = place?.cityIds[0] ?? null;
    mutable.inseeCode = place?.inseeCodes[0] ?? null;
    mutable.departmentId = place?.departmentId ?? null;
    return view;
  }

  /** What the index holds of one property (its creation as `sortMode` reads it), if indexed. */
  describe(uuid: string, sortMode: SortMode = 'property'): IndexedProperty | undefined {
    const doc = this.store.docOf(uuid);
    return doc === undefined ? undefined : this.indexedProperty(doc, sortMode);
  }

  /** Every match, in no particular order. */
  *matchingRows(criteria: PropertyCriteria): IterableIterator<IndexedProperty> {
    const docs = withScratchBitsets(() => matchingDocs(this.store, criteria).toArray());
    for (const doc of docs) yield this.indexedProperty(doc, criteria.sortMode);
  }

  /** Bytes held by the index's typed arrays, plus an estimate for its maps, strings and objects. */
  memoryBytes(): number {
    return Object.values(this.memoryBreakdown()).reduce((sum, bytes) => sum + bytes, 0);
  }

  /** `memoryBytes` by structure, for a report. */
  memoryBreakdown(): Record<string, number> {
    return this.store.memoryBreakdown();
  }

  /**
   * Gives back the room that replaced and removed rows left; after a bulk load, `trim` also drops
   * the headroom lists grew with. Searches never need it: the structures compact themselves when
   * holes make up a third of their size.
   */
  compact(trim = false): void {
    this.store.compact(trim);
  }

  /**
   * The first `count` of `total` matches in the criteria's order. With one order clause and many
   * matches, by walking that column's presorted order (about count × size / total steps);
   * otherwise by ranking every match (total steps).
   */
  private ranked(matches: Bitset, criteria: PropertyCriteria, count: number, total: number): number[] {
    const { columns, uuids } = this.store;
    const compare = orderComparator(criteria.order, criteria.sortMode, columns, uuids);
    const [clause] = criteria.order;
    if (criteria.order.length === 1 && clause !== undefined && count * this.store.docLimit < total * total) {
      const order = this.store.orders[orderColumnName(clause.field, criteria.sortMode)];
      return order.first(matches, count, clause.direction === 'desc', compare);
    }
    const top = new TopK(count, compare, primaryKey(criteria.order, criteria.sortMode, columns));
    matches.forEach((doc) => top.offer(doc));
    return top.sorted();
  }

  private indexedProperty(doc: number, sortMode: SortMode): IndexedProperty {
    return this.readInto(this.reusableView(), doc, sortMode);
  }
}

function orNull(value: number | undefined): number | null {
  return value === undefined || Number.isNaN(value) ? null : value;
}
