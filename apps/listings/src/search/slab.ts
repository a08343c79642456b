/**
 * Runs of rows of varying length, one run per owner (the adverts of a document, the documents of
 * a token…), packed in shared typed-array columns. One small typed array per owner would cost V8
 * about a hundred bytes of object headers each, more than most runs hold, and hundreds of
 * thousands of them would weigh on the garbage collector.
 *
 * A run that outgrows its capacity moves to the end of the columns and leaves a hole behind; the
 * holes are squeezed out once they make up a third of the rows, so the columns stay within one and
 * a half times the live rows plus the growth headroom; the copy that costs is amortised over the
 * moves that made the holes. `compact(true)` also trims every run to its count,
 * for after a bulk load.
 */
import { allocateColumns, columnList, columnsByteLength, grownLength, withCapacity, type ColumnSpec, type ColumnsOf, type NumericArray } from './typed-arrays';

/** Below this many hole rows, squeezing them out is not worth a copy of every column. */
const MIN_HOLES_TO_COMPACT = 4096;

/** Runs shorter than this are copied item by item: a subarray view per run would cost more. */
const SHORT_RUN = 16;

/** What a slab holds, for a snapshot of the index. */
export interface SlabState {
  columns: Record<string, NumericArray>;
  starts: Uint32Array<ArrayBuffer>;
  counts: Uint32Array<ArrayBuffer>;
  capacities: Uint32Array<ArrayBuffer>;
  owners: number;
  end: number;
  holes: number;
}

export class Slab<S extends ColumnSpec> {
  /** Replaced when the slab grows or compacts: read it again after any call that adds rows. */
  columns: ColumnsOf<S>;
  private starts = new Uint32Array(0);
  private counts = new Uint32Array(0);
  private capacities = new Uint32Array(0);
  /** Owners below this have metadata. */
  private owners = 0;
  /** Rows in use or in holes; rows from here on are free. */
  private end = 0;
  private holes = 0;

  constructor(private readonly spec: S) {
    this.columns = allocateColumns(spec, 0);
  }

  exportState(): SlabState {
    const { starts, counts, capacities, owners, end, holes } = this;
    return { columns: { ...(this.columns as Record<string, NumericArray>) }, starts, counts, capacities, owners, end, holes };
  }

  /** Becomes the slab `exportState` gave; its columns must be the ones this slab's spec names. */
  importState(state: SlabState): void {
    for (const [name, type] of Object.entries(this.spec)) {
      if (!(state.columns[name] instanceof type)) throw new Error(`snapshot column ${name} is not a ${type.name}`);
    }
    this.columns = state.columns as ColumnsOf<S>;
    ({ starts: this.starts, counts: this.counts, capacities: this.capacities, owners: this.owners, end: this.end, holes: this.holes } = state);
  }

  start(owner: number): number {
    return owner < this.owners ? (this.starts[owner] as number) : 0;
  }

  count(owner: number): number {
    return owner < this.owners ? (this.counts[owner] as number) : 0;
  }

  /** Rows of live runs. */
  get liveRows(): number {
    let total = 0;
    for (let owner = 0; owner < this.owners; owner++) total += this.counts[owner] as number;
    return total;
  }

  get byteLength(): number {
    return columnsByteLength(this.columns) + this.starts.byteLength + this.counts.byteLength + this.capacities.byteLength;
  }

  /**
   * Makes the run of `owner` `count` rows long and answers where it starts. With `keep`, its rows
   * survive a move and a growing run gets headroom (postings grow one document at a time); without,
   * the caller rewrites the run and gets exactly the room it asks for.
   */
  resize(owner: number, count: number, keep: boolean): number {
    this.ensureOwner(owner);
    const capacity = this.capacities[owner] as number;
    if (count <= capacity) {
      this.counts[owner] = count;
      return this.starts[owner] as number;
    }
    const start = this.starts[owner] as number;
    const nextCapacity = keep ? Math.max(count, capacity === 0 ? 1 : capacity < 1024 ? capacity * 2 : capacity + (capacity >>> 1)) : count;
    if (capacity > 0 && start + capacity === this.end) {
      // The last run grows where it is: the common case while documents are loaded in order.
      this.ensureRows(start + nextCapacity);
      this.end = start + nextCapacity;
      this.capacities[owner] = nextCapacity;
      this.counts[owner] = count;
      return start;
    }
    this.ensureRows(this.end + nextCapacity);
    const kept = keep ? (this.counts[owner] as number) : 0;
    if (kept > 0) for (const column of columnList(this.columns)) column.copyWithin(this.end, start, start + kept);
    this.holes += capacity;
    this.starts[owner] = this.end;
    this.capacities[owner] = nextCapacity;
    this.counts[owner] = count;
    this.end += nextCapacity;
    if (this.holes >= MIN_HOLES_TO_COMPACT && this.holes * 3 > this.end) this.compact(false);
    return this.starts[owner] as number;
  }

  release(owner: number): void {
    if (owner >= this.owners) return;
    const capacity = this.capacities[owner] as number;
    if (capacity > 0 && (this.starts[owner] as number) + capacity === this.end) this.end -= capacity;
    else this.holes += capacity;
    this.starts[owner] = 0;
    this.counts[owner] = 0;
    this.capacities[owner] = 0;
  }

  /** Squeezes out the holes; `trim` also drops every run's headroom and the columns' own. */
  compact(trim: boolean): void {
    let rows = 0;
    for (let owner = 0; owner < this.owners; owner++) rows += trim ? (this.counts[owner] as number) : (this.capacities[owner] as number);
    const current = this.columns;
    const next = allocateColumns(this.spec, trim ? rows : Math.max(rows, columnList(current)[0]?.length ?? 0));
    const sources = columnList(current);
    const targets = columnList(next);
    let position = 0;
    for (let owner = 0; owner < this.owners; owner++) {
      const count = this.counts[owner] as number;
      const capacity = trim ? count : (this.capacities[owner] as number);
      if (count > 0) copyRun(sources, targets, this.starts[owner] as number, position, count);
      this.starts[owner] = capacity === 0 ? 0 : position;
      this.capacities[owner] = capacity;
      position += capacity;
    }
    this.columns = next;
    this.end = position;
    this.holes = 0;
  }

  private ensureOwner(owner: number): void {
    if (owner < this.owners) return;
    if (owner >= this.starts.length) {
      const length = grownLength(this.starts.length, owner + 1);
      this.starts = withCapacity(this.starts, length);
      this.counts = withCapacity(this.counts, length);
      this.capacities = withCapacity(this.capacities, length);
    }
    this.owners = owner + 1;
  }

  private ensureRows(rows: number): void {
    const columns = this.columns as Record<string, NumericArray>;
    for (const name of Object.keys(columns)) columns[name] = withCapacity(columns[name] as NumericArray, rows);
  }
}

function copyRun(sources: readonly NumericArray[], targets: readonly NumericArray[], from: number, to: number, count: number): void {
  for (let c = 0; c < sources.length; c++) {
    const source = sources[c] as NumericArray;
    const target = targets[c] as NumericArray;
    if (count < SHORT_RUN) for (let i = 0; i < count; i++) target[to + i] = source[from + i] as number;
    else target.set(source.subarray(from, from + count), to);
  }
}
