/**
 * Saved searches indexed by the few criteria that rule most of them out, so that a changed property
 * is tested with the reference predicate `matches` against candidate searches only, not against
 * every saved search.
 *
 * Each search is filed under postings lists of four dimensions: its transaction type, its property
 * types, its area (included places, else the grid cells its radius or drawn shapes overlap) and its
 * budget (a range of logarithmic price buckets). A dimension the search leaves open files it under
 * that dimension's "any" list. A document looks up, in each dimension, the lists of its own keys and
 * the "any" list; the candidates are the searches found in every dimension.
 *
 * The index only prunes: every key derivation below is a necessary condition of the matching filter
 * family (place-filters.ts, geo-filters.ts, property-filters.ts), never a sufficient one, and wherever
 * a value is missing or odd the document looks in more lists rather than fewer. `matching` then
 * applies `matches` itself, so the filter semantics live in one place only.
 *
 * Criteria are kept by reference: a caller that changes a search upserts new criteria rather than
 * mutating the stored object, whose keys were read once, at upsert.
 */
import { MEAN_EARTH_RADIUS_KM, type PropertyDocument } from '@immo/contracts';
import { cityIdsCovering, inseeCodesCovering, matches, zipcodesOf, type PropertyCriteria } from '@immo/property-criteria';

/** Internal dense number of a search: sets of small integers and a typed mark array are much cheaper than strings. */
type Slot = number;

/** Where one search is filed, kept so that removal undoes exactly what registration did. */
interface Registration {
  /** undefined: the "any" list. */
  transactionType: number | undefined;
  /** Empty: the "any" list. */
  propertyTypes: readonly number[];
  placeKeys: readonly string[];
  cellKeys: readonly number[];
  /** Neither places nor a usable area: the location "any" list. */
  anyLocation: boolean;
  /** Empty with `anyPrice` false: a budget no price can meet (never a candidate, and `matches` agrees). */
  priceNodes: readonly number[];
  anyPrice: boolean;
  /** Leaves of the budget, for probing; `priceLow` > `priceHigh` when no price meets it. */
  priceLow: number;
  priceHigh: number;
}

interface Entry<T> {
  searchId: string;
  criteria: PropertyCriteria;
  value: T;
  registration: Registration;
}

class Postings<K> {
  private readonly lists = new Map<K, Set<Slot>>();

  add(key: K, slot: Slot): void {
    let list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, (list = new Set()));
    list.add(slot);
  }

  delete(key: K, slot: Slot): void {
    const list = this.lists.get(key);
    if (list === undefined) return;
    list.delete(slot);
    // Searches come and go for years: emptied lists (a city nobody watches any more) are dropped.
    if (list.size === 0) this.lists.delete(key);
  }

  get(key: K): Set<Slot> | undefined {
    return this.lists.get(key);
  }
}

// ---------------------------------------------------------------------------------------------
// Price: logarithmic buckets arranged as a binary tree.
//
// Leaf k holds prices in [2^(k/4), 2^((k+1)/4)): steps of about 19%, so a budget is approximated
// within a fifth of its bounds. Leaf 0 also takes everything below 2^(1/4) (zero, negatives) and
// the last leaf everything above about 3.6 billion. A budget covering many leaves ("up to
// 300,000 €" covers 73) is filed under the few tree nodes that tile its leaf range (at most two per
// level), and a document looks up the one node above its leaf at each level: a half-open budget
// costs a handful of postings instead of one per leaf, and a lookup eight.
// ---------------------------------------------------------------------------------------------
const PRICE_LEVELS = 7;
const PRICE_LEAVES = 1 << PRICE_LEVELS;
const PRICE_STEPS_PER_DOUBLING = 4;
/** Lower bound of each leaf; found by comparison rather than by `Math.log2`, so that the leaf can never decrease as the price grows. */
const LEAF_FLOORS: readonly number[] = Array.from({ length: PRICE_LEAVES }, (_, k) => (k === 0 ? -Infinity : 2 ** (k / PRICE_STEPS_PER_DOUBLING)));

/** The leaf of a price (not NaN): the last leaf whose floor is at most the price. */
function priceLeaf(price: number): number {
  let low = 0;
  let high = PRICE_LEAVES - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((LEAF_FLOORS[middle] as number) <= price) low = middle;
    else high = middle - 1;
  }
  return low;
}

const priceNodeKey = (level: number, index: number): number => level * PRICE_LEAVES + index;

/** The tree nodes tiling leaves `low`..`high` (inclusive), at most two per level. */
function priceNodesCovering(low: number, high: number): number[] {
  const nodes: number[] = [];
  for (let level = 0; low <= high; level++, low >>= 1, high >>= 1) {
    if ((low & 1) === 1) nodes.push(priceNodeKey(level, low++));
    if ((high & 1) === 0) nodes.push(priceNodeKey(level, high--));
  }
  return nodes;
}

/** The node above the leaf at every level, leaf to root. */
function priceNodesAbove(leaf: number): number[] {
  const nodes: number[] = [];
  for (let level = 0; level <= PRICE_LEVELS; level++) nodes.push(priceNodeKey(level, leaf >> level));
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// Area: grid cells at three sizes.
//
// A radius or a drawn shape is filed under the cells of its bounding box at the finest size that
// needs at most MAX_CELLS cells; a document looks up its own cell at every size. Sizes are powers of
// two that divide 360, so a cell number is an exact function of the coordinates and longitudes wrap
// around the antimeridian cleanly. Cell numbers never decrease as a coordinate grows (IEEE division
// and floor are monotonic), so a point inside a box is in one of the box's cells, edges included.
// ---------------------------------------------------------------------------------------------
/** About 28 km × 19 km in metropolitan France, then 111 × 77 km, then 445 × 310 km. */
const CELL_DEGREES: readonly number[] = [0.25, 1, 4];
/** A 50 km radius stays at the finest size; 150 km still fits the middle one. */
const MAX_CELLS = 48;
/** Keeps floating-point error of the distance and edge tests (a few ulps) from falling between a box and its cells: about 1 cm. */
const EDGE_MARGIN_DEGREES = 1e-7;
const ROW_OFFSET = 512;
const ROWS_PER_LEVEL = 1024;
const COLUMNS_PER_ROW = 2048;
const DEG = Math.PI / 180;

interface LatLonBox {
  south: number;
  north: number;
  west: number;
  east: number;
  /** Every longitude (a circle around a pole, a shape wider than the globe). */
  allLongitudes: boolean;
}

function cellKey(level: number, row: number, column: number): number {
  return (level * ROWS_PER_LEVEL + row + ROW_OFFSET) * COLUMNS_PER_ROW + column;
}

function columnOf(lon: number, degrees: number): number {
  const columns = 360 / degrees;
  return ((Math.floor(lon / degrees) % columns) + columns) % columns;
}

/** The cells of a box at the finest size that keeps them few; null when even the coarsest needs too many. */
function cellsOfBox(box: LatLonBox): number[] | null {
  for (let level = 0; level < CELL_DEGREES.length; level++) {
    const degrees = CELL_DEGREES[level] as number;
    const columns = 360 / degrees;
    const firstRow = Math.floor(Math.max(-90, box.south) / degrees);
    const lastRow = Math.floor(Math.min(90, box.north) / degrees);
    const firstColumn = Math.floor(box.west / degrees);
    const lastColumn = Math.floor(box.east / degrees);
    const allColumns = box.allLongitudes || lastColumn - firstColumn + 1 >= columns;
    const columnCount = allColumns ? columns : lastColumn - firstColumn + 1;
    if ((lastRow - firstRow + 1) * columnCount > MAX_CELLS) continue;
    const keys: number[] = [];
    for (let row = firstRow; row <= lastRow; row++) {
      for (let i = 0; i < columnCount; i++) {
        const column = allColumns ? i : ((((firstColumn + i) % columns) + columns) % columns);
        keys.push(cellKey(level, row, column));
      }
    }
    return keys;
  }
  return null;
}

/**
 * Bounding box of the points within `radiusKm` great-circle distance of the centre, on the sphere
 * greatCircleKm uses: ±θ in latitude and ±asin(sin θ / cos φ) in longitude for an angular radius θ,
 * every longitude when the circle reaches a pole. Null when the centre is no point on the globe.
 */
function boxOfRadius(centre: { lat: number; lon: number }, radiusKm: number): LatLonBox | null {
  if (!Number.isFinite(centre.lat) || !Number.isFinite(centre.lon) || Math.abs(centre.lat) > 90 || !(radiusKm >= 0) || !Number.isFinite(radiusKm)) return null;
  const angle = (radiusKm / MEAN_EARTH_RADIUS_KM) * (1 + 1e-9);
  const latSpan = angle / DEG + EDGE_MARGIN_DEGREES;
  const south = centre.lat - latSpan;
  const north = centre.lat + latSpan;
  if (north >= 90 || south <= -90) return { south, north, west: -180, east: 180, allLongitudes: true };
  const ratio = Math.sin(angle) / Math.cos(centre.lat * DEG);
  if (ratio >= 1) return { south, north, west: -180, east: 180, allLongitudes: true };
  const lonSpan = Math.asin(ratio) / DEG + EDGE_MARGIN_DEGREES;
  return { south, north, west: centre.lon - lonSpan, east: centre.lon + lonSpan, allLongitudes: false };
}

/** Plain longitude/latitude bounding box of a ring, as isPointInRing tests it (planar, no wrapping). */
function boxOfRing(ring: readonly (readonly number[])[]): LatLonBox | null {
  let south = Infinity;
  let north = -Infinity;
  let west = Infinity;
  let east = -Infinity;
  for (const [lon, lat] of ring) {
    if (lon === undefined || lat === undefined || !Number.isFinite(lon) || !Number.isFinite(lat)) return null;
    south = Math.min(south, lat);
    north = Math.max(north, lat);
    west = Math.min(west, lon);
    east = Math.max(east, lon);
  }
  if (south > north) return null;
  const margin = EDGE_MARGIN_DEGREES;
  return { south: south - margin, north: north + margin, west: west - margin, east: east + margin, allLongitudes: false };
}

/** Cells covering a radius or the union of shapes; null when the criteria have neither or it is too wide to be worth cells. */
function areaCells(criteria: PropertyCriteria): number[] | null {
  let best: number[] | null = null;
  if (criteria.point !== undefined && criteria.radiusKm !== undefined) {
    const box = boxOfRadius(criteria.point, criteria.radiusKm);
    best = box === null ? null : cellsOfBox(box);
  }
  if (criteria.geoShapes.length > 0) {
    // A document must lie in one of the shapes: the union of their cells.
    const union = new Set<number>();
    let usable = true;
    for (const ring of criteria.geoShapes) {
      const box = boxOfRing(ring);
      const cells = box === null ? null : cellsOfBox(box);
      if (cells === null) {
        usable = false;
        break;
      }
      for (const cell of cells) union.add(cell);
    }
    // Radius and shapes must both hold: either cell set is a valid filing, the smaller prunes more.
    if (usable && (best === null || union.size < best.length)) best = [...union];
  }
  return best;
}

/** Whether the grid can place the document: coordinates off the globe's ranges are read by the distance and shape tests in ways the cells do not follow. */
function isOnGrid(point: { lat: number; lon: number }): boolean {
  return Number.isFinite(point.lat) && Number.isFinite(point.lon) && Math.abs(point.lat) <= 90 && Math.abs(point.lon) <= 180;
}

function registrationOf(criteria: PropertyCriteria): Registration {
  // Included places of every kind form one union and a document must be in it (place-filters.ts):
  // one key per included place, in the form the document's covering places are looked up in.
  const placeKeys = [
    ...criteria.includedCities.map((id) => `c${id}`),
    ...criteria.includedDepartments.map((id) => `d${id}`),
    ...criteria.includedInseeCodes.map((code) => `i${code}`),
    ...criteria.includedZipcodes.map((code) => `z${code}`),
  ];
  // Places and an area must both hold; places are the cheaper filing and usually the narrower.
  const cellKeys = placeKeys.length > 0 ? null : areaCells(criteria);
  const budget = criteria.budget;
  // A NaN bound is read as open: a wider filing is always safe.
  const min = budget.min === undefined || Number.isNaN(budget.min) ? undefined : budget.min;
  const max = budget.max === undefined || Number.isNaN(budget.max) ? undefined : budget.max;
  const anyPrice = min === undefined && max === undefined;
  const priceLow = min === undefined ? 0 : priceLeaf(min);
  const priceHigh = max === undefined ? PRICE_LEAVES - 1 : priceLeaf(max);
  return {
    transactionType: criteria.transactionType,
    propertyTypes: [...new Set<number>(criteria.propertyTypes)],
    placeKeys,
    cellKeys: cellKeys ?? [],
    anyLocation: placeKeys.length === 0 && cellKeys === null,
    priceNodes: anyPrice ? [] : priceNodesCovering(priceLow, priceHigh),
    anyPrice,
    priceLow,
    priceHigh,
  };
}

/** Probe code of a search without a transaction type; also taken by a value the table cannot hold. */
const ANY_TRANSACTION = -1;
/** Probe bit of a search without property types; also set by a type outside the table's bits. */
const ANY_PROPERTY_TYPE = 1 << 15;
const PROPERTY_TYPE_BITS = 15;

/** A document's keys of the dimensions probed through the slot tables. */
interface ProbedKeys {
  transactionType: number;
  /** 0 for a type no search lists by bit: only searches of any type take it. */
  propertyTypeBit: number;
  /** -1 without a price. */
  priceLeaf: number;
}

export class SearchMatchIndex<T = unknown> {
  private readonly slotOfId = new Map<string, Slot>();
  private readonly entries: Array<Entry<T> | undefined> = [];
  private readonly freeSlots: Slot[] = [];

  // Postings: from a document's keys to the searches filed under them, to walk one dimension.
  private readonly byTransactionType = new Postings<number>();
  private readonly anyTransactionType = new Set<Slot>();
  private readonly byPropertyType = new Postings<number>();
  private readonly anyPropertyType = new Set<Slot>();
  private readonly byPlace = new Postings<string>();
  private readonly byCell = new Postings<number>();
  /** Every search filed under cells, for a document whose coordinates the grid cannot place. */
  private readonly cellFiled = new Set<Slot>();
  private readonly anyLocation = new Set<Slot>();
  private readonly byPriceNode = new Postings<number>();
  private readonly anyPrice = new Set<Slot>();

  // Slot tables: the same filing read the other way, from a search to its keys. Testing a walked
  // search against the transaction, type and budget dimensions is then a few array reads instead
  // of set lookups in up to nine postings lists, which is most of the cost of a lookup.
  private transactionOf = new Int16Array(64);
  private propertyTypesOf = new Uint16Array(64);
  private anyPriceOf = new Uint8Array(64);
  private priceLowOf = new Uint8Array(64);
  private priceHighOf = new Uint8Array(64);
  /** Marks slots already seen by the current lookup (a search filed under two of the document's places). */
  private seen = new Uint32Array(64);
  private lookup = 0;

  get size(): number {
    return this.slotOfId.size;
  }

  upsert(searchId: string, criteria: PropertyCriteria, value: T): void {
    this.remove(searchId);
    const slot = this.freeSlots.pop() ?? this.entries.length;
    const registration = registrationOf(criteria);
    this.entries[slot] = { searchId, criteria, value, registration };
    this.slotOfId.set(searchId, slot);
    this.file(slot, registration, true);
    this.tabulate(slot, registration);
  }

  remove(searchId: string): void {
    const slot = this.slotOfId.get(searchId);
    if (slot === undefined) return;
    const entry = this.entries[slot] as Entry<T>;
    this.file(slot, entry.registration, false);
    this.entries[slot] = undefined;
    this.slotOfId.delete(searchId);
    this.freeSlots.push(slot);
  }

  value(searchId: string): T | undefined {
    const slot = this.slotOfId.get(searchId);
    return slot === undefined ? undefined : this.entries[slot]?.value;
  }

  /** Ids of the searches the document may match: every search it matches, and usually few others. */
  candidates(doc: PropertyDocument): string[] {
    return this.candidateSlots(doc).map((slot) => (this.entries[slot] as Entry<T>).searchId);
  }

  /** The searches whose criteria the document meets, by the reference predicate. */
  matching(doc: PropertyDocument): Array<{ searchId: string; value: T }> {
    const found: Array<{ searchId: string; value: T }> = [];
    for (const slot of this.candidateSlots(doc)) {
      const entry = this.entries[slot] as Entry<T>;
      if (matches(entry.criteria, doc)) found.push({ searchId: entry.searchId, value: entry.value });
    }
    return found;
  }

  private file(slot: Slot, registration: Registration, add: boolean): void {
    const put = <K>(postings: Postings<K>, key: K): void => (add ? postings.add(key, slot) : postings.delete(key, slot));
    const flag = (set: Set<Slot>, filed: boolean): void => {
      if (!filed) return;
      if (add) set.add(slot);
      else set.delete(slot);
    };

    if (registration.transactionType === undefined) flag(this.anyTransactionType, true);
    else put(this.byTransactionType, registration.transactionType);

    flag(this.anyPropertyType, registration.propertyTypes.length === 0);
    for (const type of registration.propertyTypes) put(this.byPropertyType, type);

    for (const key of registration.placeKeys) put(this.byPlace, key);
    for (const key of registration.cellKeys) put(this.byCell, key);
    flag(this.cellFiled, registration.cellKeys.length > 0);
    flag(this.anyLocation, registration.anyLocation);

    for (const node of registration.priceNodes) put(this.byPriceNode, node);
    flag(this.anyPrice, registration.anyPrice);
  }

  /** Writes the slot's row of the slot tables; a value a table cannot hold is written as "any", which only widens. */
  private tabulate(slot: Slot, registration: Registration): void {
    if (slot >= this.seen.length) this.grow(slot + 1);
    const transactionType = registration.transactionType;
    this.transactionOf[slot] = transactionType !== undefined && Number.isInteger(transactionType) && transactionType >= 0 && transactionType < 1 << 15 ? transactionType : ANY_TRANSACTION;
    let types = registration.propertyTypes.length === 0 ? ANY_PROPERTY_TYPE : 0;
    for (const type of registration.propertyTypes) types |= propertyTypeBit(type) || ANY_PROPERTY_TYPE;
    this.propertyTypesOf[slot] = types;
    this.anyPriceOf[slot] = registration.anyPrice ? 1 : 0;
    this.priceLowOf[slot] = registration.priceLow;
    this.priceHighOf[slot] = registration.priceHigh;
  }

  private grow(needed: number): void {
    let capacity = this.seen.length;
    while (capacity < needed) capacity *= 2;
    const grown = <A extends Int16Array | Uint16Array | Uint8Array | Uint32Array>(array: A, make: (length: number) => A): A => {
      const copy = make(capacity);
      copy.set(array);
      return copy;
    };
    this.transactionOf = grown(this.transactionOf, (n) => new Int16Array(n));
    this.propertyTypesOf = grown(this.propertyTypesOf, (n) => new Uint16Array(n));
    this.anyPriceOf = grown(this.anyPriceOf, (n) => new Uint8Array(n));
    this.priceLowOf = grown(this.priceLowOf, (n) => new Uint8Array(n));
    this.priceHighOf = grown(this.priceHighOf, (n) => new Uint8Array(n));
    this.seen = grown(this.seen, (n) => new Uint32Array(n));
  }

  /**
   * The intersection over the four dimensions of the union of the document's lists: the dimension
   * whose lists hold the fewest searches is walked, and each search met is kept when the other
   * dimensions take it too (the slot tables answer for three of them, the location lists for the
   * fourth).
   */
  private candidateSlots(doc: PropertyDocument): Slot[] {
    const keys = probedKeys(doc);
    const location = this.locationLists(doc);
    const dimensions = [this.transactionLists(doc), this.propertyTypeLists(doc), location, this.priceLists(keys)];
    let walked = location;
    let smallest = Infinity;
    for (const lists of dimensions) {
      const total = lists.reduce((sum, list) => sum + list.size, 0);
      if (total < smallest) [walked, smallest] = [lists, total];
    }
    if (smallest === 0) return [];
    // Within the location dimension, the biggest list first: the likeliest to hold the search.
    const locationProbe = walked === location ? null : location.sort((a, b) => b.size - a.size);
    const mark = this.nextLookup();
    const { seen, transactionOf, propertyTypesOf, anyPriceOf, priceLowOf, priceHighOf } = this;
    const found: Slot[] = [];
    for (const list of walked) {
      for (const slot of list) {
        if (seen[slot] === mark) continue;
        seen[slot] = mark;
        const transactionType = transactionOf[slot] as number;
        if (transactionType !== ANY_TRANSACTION && transactionType !== keys.transactionType) continue;
        if (((propertyTypesOf[slot] as number) & (ANY_PROPERTY_TYPE | keys.propertyTypeBit)) === 0) continue;
        if (anyPriceOf[slot] === 0 && (keys.priceLeaf < (priceLowOf[slot] as number) || keys.priceLeaf > (priceHighOf[slot] as number))) continue;
        if (locationProbe !== null && !inAnyList(slot, locationProbe)) continue;
        found.push(slot);
      }
    }
    return found;
  }

  private nextLookup(): number {
    if (this.lookup === 0xffffffff) {
      this.seen.fill(0);
      this.lookup = 0;
    }
    return ++this.lookup;
  }

  private transactionLists(doc: PropertyDocument): Set<Slot>[] {
    return nonEmpty([this.byTransactionType.get(doc.transactionType), this.anyTransactionType]);
  }

  private propertyTypeLists(doc: PropertyDocument): Set<Slot>[] {
    return nonEmpty([this.byPropertyType.get(doc.propertyType), this.anyPropertyType]);
  }

  private locationLists(doc: PropertyDocument): Set<Slot>[] {
    const lists: Array<Set<Slot> | undefined> = [this.anyLocation];
    // A document without a city is in no included place (place-filters.ts): place-filed searches never take it.
    const city = doc.city;
    if (city !== null) {
      for (const id of cityIdsCovering(city)) lists.push(this.byPlace.get(`c${id}`));
      lists.push(this.byPlace.get(`d${city.department.id}`));
      for (const code of inseeCodesCovering(city)) lists.push(this.byPlace.get(`i${code}`));
      for (const code of zipcodesOf(city)) lists.push(this.byPlace.get(`z${code}`));
    }
    // Without coordinates no radius or shape holds (geo-filters.ts): cell-filed searches never take it.
    const point = doc.locations;
    if (point !== null) {
      if (isOnGrid(point)) {
        for (let level = 0; level < CELL_DEGREES.length; level++) {
          const degrees = CELL_DEGREES[level] as number;
          lists.push(this.byCell.get(cellKey(level, Math.floor(point.lat / degrees), columnOf(point.lon, degrees))));
        }
      } else {
        // Coordinates off the globe's ranges: which distance or shape test they pass is not worth
        // predicting for a data error, so every search filed under cells is a candidate.
        lists.push(this.cellFiled);
      }
    }
    return nonEmpty(lists);
  }

  private priceLists(keys: ProbedKeys): Set<Slot>[] {
    // A missing price meets no budget bound (bounds.ts): only searches without a budget take it.
    if (keys.priceLeaf < 0) return nonEmpty([this.anyPrice]);
    return nonEmpty([this.anyPrice, ...priceNodesAbove(keys.priceLeaf).map((node) => this.byPriceNode.get(node))]);
  }
}

/** The bit of a property type in the slot table; 0 for a type outside it. */
function propertyTypeBit(type: number): number {
  return Number.isInteger(type) && type >= 0 && type < PROPERTY_TYPE_BITS ? 1 << type : 0;
}

function probedKeys(doc: PropertyDocument): ProbedKeys {
  const price = doc.price as number | null;
  return {
    transactionType: doc.transactionType,
    propertyTypeBit: propertyTypeBit(doc.propertyType),
    priceLeaf: typeof price !== 'number' || Number.isNaN(price) ? -1 : priceLeaf(price),
  };
}

function nonEmpty(lists: ReadonlyArray<Set<Slot> | undefined>): Set<Slot>[] {
  return lists.filter((list): list is Set<Slot> => list !== undefined && list.size > 0);
}

function inAnyList(slot: Slot, lists: ReadonlyArray<Set<Slot>>): boolean {
  for (const list of lists) if (list.has(slot)) return true;
  return false;
}
