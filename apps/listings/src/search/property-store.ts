/**
 * The write side of the search index: document numbers, property-level columns and every
 * structure a search reads, kept in step by `upsert` and `remove`.
 *
 * A document number is a dense index into the columns and bitsets. Numbers carry no order (ties
 * are broken by uuid), so a removed property's number is handed to the next new one: the columns
 * stay as long as the peak number of properties without a renumbering pass. A replaced property
 * keeps its number, so an update that changes a price touches one column cell and no postings.
 */
import { internString, ShardedMap } from '@immo/runtime';
import { AdvertTable } from './advert-table';
import { Bitset } from './bitset';
import { EventTable } from './event-table';
import { FlagSets, flagsOf } from './flag-sets';
import { GeoGrid, type GeoGridState } from './geo-grid';
import { ARRAY_SLOT_BYTES, MAP_ENTRY_BYTES, stringBytes } from './memory-estimate';
import { PlaceIndex, type PlaceIndexState } from './place-index';
import { PresortedOrder, type PresortedOrderState } from './presorted-order';
import type { OrderField, SortMode } from '@immo/property-criteria';
import { orderComparator, type OrderColumnName } from './result-order';
import type { SearchRow } from './search-row';
import type { SlabState } from './slab';
import { TextIndex, type TextIndexState } from './text-index';
import { allocateColumns, columnsByteLength, grownLength, resized, withCapacity, type ColumnsOf, type NumericArray } from './typed-arrays';

/** Property-level values by document number; NaN where the property has none. */
const DOC_COLUMNS = {
  transactionType: Float64Array,
  propertyType: Float64Array,
  price: Float64Array,
  pricePerMeter: Float64Array,
  surface: Float64Array,
  landSurface: Float64Array,
  room: Float64Array,
  bedroom: Float64Array,
  createdAtMs: Float64Array,
  latestAdvertCreatedAtMs: Float64Array,
  updatedAtMs: Float64Array,
  lat: Float64Array,
  lon: Float64Array,
  /** Lowest and highest price of the adverts that have not expired: `advertPriceMin`/`Max` (query-plan.ts). */
  liveAdvertPriceLow: Float64Array,
  liveAdvertPriceHigh: Float64Array,
};

export type DocColumns = ColumnsOf<typeof DOC_COLUMNS>;

const ORDER_COLUMNS: readonly OrderColumnName[] = ['createdAtMs', 'latestAdvertCreatedAtMs', 'updatedAtMs', 'price', 'pricePerMeter', 'surface'];

export interface PropertyStoreState {
  columns: DocColumns;
  uuids: string[];
  freeDocs: number[];
  nextDoc: number;
  alive: Uint32Array;
  flags: [flag: string, words: Uint32Array][];
  places: PlaceIndexState;
  grid: GeoGridState;
  adverts: SlabState;
  events: SlabState;
  texts: TextIndexState;
  orders: Record<OrderColumnName, PresortedOrderState>;
}

export class PropertyStore {
  readonly alive = new Bitset();
  readonly flags = new FlagSets();
  readonly places = new PlaceIndex();
  readonly grid = new GeoGrid();
  readonly adverts = new AdvertTable();
  readonly events = new EventTable();
  readonly texts = new TextIndex();
  /** Its arrays are replaced as they grow: read them again after an upsert. */
  readonly columns: DocColumns = allocateColumns(DOC_COLUMNS, 0);
  /** By document number; empty for a free number. */
  readonly uuids: string[] = [];
  /** Sharded: one entry per property (see `ShardedMap`). */
  private readonly docOfUuid = new ShardedMap<string, number>();
  /** Documents whose uuid is not lower case, by lower-cased uuid: `excludedProperties` is lower case. */
  private readonly otherCaseDocs = new Map<string, Set<number>>();
  private readonly freeDocs: number[] = [];
  private nextDoc = 0;
  /** The sort columns' documents in order, for first pages of large results. */
  readonly orders: Readonly<Record<OrderColumnName, PresortedOrder>> = {
    createdAtMs: this.presorted('createdAtMs', 'createdAt', 'property'),
    latestAdvertCreatedAtMs: this.presorted('latestAdvertCreatedAtMs', 'createdAt', 'advert'),
    updatedAtMs: this.presorted('updatedAtMs', 'updatedAt', 'property'),
    price: this.presorted('price', 'price', 'property'),
    pricePerMeter: this.presorted('pricePerMeter', 'pricePerMeter', 'property'),
    surface: this.presorted('surface', 'surface', 'property'),
  };

  get size(): number {
    return this.docOfUuid.size;
  }

  /** Everything the store holds, as typed arrays and plain values (see projection/search-index-snapshot.ts); not a copy. */
  exportState(): PropertyStoreState {
    return {
      columns: { ...this.columns },
      uuids: this.uuids,
      freeDocs: this.freeDocs,
      nextDoc: this.nextDoc,
      alive: this.alive.exportState(),
      flags: this.flags.exportState(),
      places: this.places.exportState(),
      grid: this.grid.exportState(),
      adverts: this.adverts.exportState(),
      events: this.events.exportState(),
      texts: this.texts.exportState(),
      orders: Object.fromEntries(ORDER_COLUMNS.map((name) => [name, this.orders[name].exportState()])) as Record<OrderColumnName, PresortedOrderState>,
    };
  }

  /** Into an empty store: becomes the store `exportState` gave; the uuid maps are rebuilt from `uuids`. */
  importState(state: PropertyStoreState): void {
    if (this.nextDoc > 0) throw new Error('a property store is restored into an empty one only');
    for (const [name, type] of Object.entries(DOC_COLUMNS)) {
      const column = state.columns[name as keyof DocColumns];
      if (!(column instanceof type)) throw new Error(`snapshot column ${name} is missing`);
      this.columns[name as keyof DocColumns] = column;
    }
    for (const uuid of state.uuids) this.uuids.push(internString(uuid));
    for (const doc of state.freeDocs) this.freeDocs.push(doc);
    this.nextDoc = state.nextDoc;
    this.uuids.forEach((uuid, doc) => {
      if (uuid !== '') this.nameDoc(uuid, doc);
    });
    this.alive.importState(state.alive);
    this.flags.importState(state.flags);
    this.places.importState(state.places);
    this.grid.importState(state.grid);
    this.adverts.importState(state.adverts);
    this.events.importState(state.events);
    this.texts.importState(state.texts);
    for (const name of ORDER_COLUMNS) this.orders[name].importState(state.orders[name]);
  }

  /** Every document number is below this. */
  get docLimit(): number {
    return this.nextDoc;
  }

  /**
   * An empty transient set (see `Bitset.transient`) long enough for any set of documents: as long
   * as `alive`, which grows by doubling, so that combining them never allocates a longer copy.
   */
  emptyQuerySet(): Bitset {
    return Bitset.transient(Math.max(this.docLimit, this.alive.capacity));
  }

  docOf(uuid: string): number | undefined {
    return this.docOfUuid.get(uuid);
  }

  /** The documents whose lower-cased uuid is `lowerCaseUuid`. */
  docsNamed(lowerCaseUuid: string): number[] {
    const exact = this.docOfUuid.get(lowerCaseUuid);
    const others = this.otherCaseDocs.get(lowerCaseUuid);
    const docs = exact === undefined ? [] : [exact];
    if (others !== undefined) docs.push(...others);
    return docs;
  }

  upsert(row: SearchRow): void {
    let doc = this.docOfUuid.get(row.uuid);
    const admitted = doc === undefined;
    if (doc === undefined) doc = this.admit(row.uuid);
    const columns = this.columns;
    columns.transactionType[doc] = row.transactionType;
    columns.propertyType[doc] = row.propertyType;
    this.setOrderValue('price', doc, row.price, admitted);
    this.setOrderValue('pricePerMeter', doc, row.pricePerMeter, admitted);
    this.setOrderValue('surface', doc, row.surface, admitted);
    columns.landSurface[doc] = row.landSurface ?? Number.NaN;
    columns.room[doc] = row.room ?? Number.NaN;
    columns.bedroom[doc] = row.bedroom ?? Number.NaN;
    this.setOrderValue('createdAtMs', doc, row.createdAtMs, admitted);
    this.setOrderValue('latestAdvertCreatedAtMs', doc, row.latestAdvertCreatedAtMs, admitted);
    this.setOrderValue('updatedAtMs', doc, row.updatedAtMs, admitted);
    columns.lat[doc] = row.location?.lat ?? Number.NaN;
    columns.lon[doc] = row.location?.lon ?? Number.NaN;
    const livePrices = liveAdvertPriceSpan(row);
    columns.liveAdvertPriceLow[doc] = livePrices.low;
    columns.liveAdvertPriceHigh[doc] = livePrices.high;
    this.flags.assign(doc, flagsOf(row));
    this.places.set(doc, row.place);
    this.grid.place(doc, row.location);
    this.adverts.write(doc, row.adverts);
    this.events.write(doc, row.events);
    this.texts.set(doc, row.texts);
  }

  remove(uuid: string): boolean {
    const doc = this.docOfUuid.get(uuid);
    if (doc === undefined) return false;
    this.flags.remove(doc);
    this.places.remove(doc);
    this.grid.remove(doc);
    this.adverts.release(doc);
    this.events.release(doc);
    this.texts.remove(doc);
    this.alive.delete(doc);
    for (const name of ORDER_COLUMNS) this.orders[name].touch(doc);
    this.docOfUuid.delete(uuid);
    const lowerCase = uuid.toLowerCase();
    const others = this.otherCaseDocs.get(lowerCase);
    others?.delete(doc);
    if (others?.size === 0) this.otherCaseDocs.delete(lowerCase);
    this.uuids[doc] = '';
    this.freeDocs.push(doc);
    return true;
  }

  /** Squeezes out the room updates left behind; `trim` also drops growth headroom, after a bulk load. */
  compact(trim: boolean): void {
    this.adverts.compact(trim);
    this.events.compact(trim);
    this.texts.compact(trim);
    if (!trim) return;
    this.flags.trim();
    const columns = this.columns as unknown as Record<string, NumericArray>;
    for (const name of Object.keys(columns)) columns[name] = resized(columns[name] as NumericArray, this.nextDoc);
  }

  /** Writes a sort column's value; its presorted order learns of the document when the value moved. */
  private setOrderValue(name: OrderColumnName, doc: number, value: number | null, admitted: boolean): void {
    const column = this.columns[name];
    const next = value ?? Number.NaN;
    const previous = column[doc] as number;
    column[doc] = next;
    if (admitted || !(previous === next || (Number.isNaN(previous) && Number.isNaN(next)))) this.orders[name].touch(doc);
  }

  private presorted(column: OrderColumnName, field: OrderField, sortMode: SortMode): PresortedOrder {
    return new PresortedOrder(
      () => this.columns[column],
      this.alive,
      () => orderComparator([{ field, direction: 'asc' }], sortMode, this.columns, this.uuids),
    );
  }

  /** Bytes by structure: typed arrays' lengths, plus estimates for maps, strings and objects. */
  memoryBreakdown(): Record<string, number> {
    let uuids = this.uuids.length * ARRAY_SLOT_BYTES + this.docOfUuid.size * MAP_ENTRY_BYTES + this.freeDocs.length * ARRAY_SLOT_BYTES;
    // Uuids are the same length: one string's size stands for all of them.
    const sample = this.uuids.find((uuid) => uuid !== '');
    if (sample !== undefined) uuids += this.docOfUuid.size * stringBytes(sample);
    return {
      uuids,
      columns: columnsByteLength(this.columns) + this.alive.byteLength,
      flags: this.flags.byteLength,
      places: this.places.byteLength(),
      grid: this.grid.byteLength,
      adverts: this.adverts.byteLength,
      events: this.events.byteLength,
      ...this.texts.memoryBreakdown(),
    };
  }

  private admit(given: string): number {
    // Interned: the same id is held by the store's skeletons and the grouping index.
    const uuid = internString(given);
    const doc = this.freeDocs.pop() ?? this.nextDoc++;
    if (doc >= this.columns.price.length) this.growColumns(doc + 1);
    this.uuids[doc] = uuid;
    this.alive.add(doc);
    this.nameDoc(uuid, doc);
    return doc;
  }

  private nameDoc(uuid: string, doc: number): void {
    this.docOfUuid.set(uuid, doc);
    const lowerCase = uuid.toLowerCase();
    if (lowerCase !== uuid) {
      let others = this.otherCaseDocs.get(lowerCase);
      if (others === undefined) this.otherCaseDocs.set(lowerCase, (others = new Set()));
      others.add(doc);
    }
  }

  /** The columns are always the same length. */
  private growColumns(needed: number): void {
    const length = grownLength(this.columns.price.length, needed);
    const columns = this.columns as unknown as Record<string, NumericArray>;
    for (const name of Object.keys(columns)) columns[name] = withCapacity(columns[name] as NumericArray, length);
  }
}

/** NaN for both when no advert is live and priced. */
function liveAdvertPriceSpan(row: SearchRow): { low: number; high: number } {
  let low = Number.NaN;
  let high = Number.NaN;
  for (const advert of row.adverts) {
    const price = advert.livePrice;
    if (price === null || price === undefined) continue;
    if (!(price >= low)) low = price;
    if (!(price <= high)) high = price;
  }
  return { low, high };
}
