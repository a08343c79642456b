/**
 * A set of document numbers as one bit each. At 200,000 documents a set is 25 KB whatever it
 * holds, and intersections, unions and differences run a word (32 documents) at a time, which is
 * what lets a query combine a dozen filters in microseconds before reading any column.
 *
 * A missing word counts as zero, so sets of different lengths combine: a flag set only grows as
 * far as its highest document.
 */
import { resized } from './typed-arrays';

/**
 * Where the transient sets of the query under way are carved from (see `withScratchBitsets`):
 * one buffer, reused from query to query, so a query's dozen 25 KB sets cost no allocation.
 * Allocated one by one, they made about 300 MB/s of off-heap memory at a thousand queries a
 * second, and V8 answers off-heap growth with a young-generation collection: one every 100 ms
 * in listings, 5 to 9 ms each, that every request under way waited for.
 */
interface Scratch {
  buffer: ArrayBuffer;
  usedBytes: number;
}
let scratch: Scratch | null = null;
let spareBuffer = new ArrayBuffer(0);

/**
 * Runs a synchronous query whose transient sets (`Bitset.transient`, `clone`) share one reused
 * buffer. They are valid until `query` returns: it must return none of them (ids or numbers only).
 */
export function withScratchBitsets<T>(query: () => T): T {
  if (scratch !== null) return query();
  const current: Scratch = { buffer: spareBuffer, usedBytes: 0 };
  scratch = current;
  try {
    return query();
  } finally {
    scratch = null;
    // The buffer may have grown during the query: the larger one serves the next.
    spareBuffer = current.buffer;
  }
}

export class Bitset {
  private words: Uint32Array;

  constructor(capacity = 0) {
    this.words = new Uint32Array((capacity + 31) >>> 5);
  }

  /** The set's words, for a snapshot of the index (see projection/search-index-snapshot.ts); not a copy. */
  exportState(): Uint32Array {
    return this.words;
  }

  /** Becomes the set `exportState` gave. */
  importState(words: Uint32Array): void {
    this.words = words;
  }

  /** Numbers below this fit without growing. */
  get capacity(): number {
    return this.words.length << 5;
  }

  get byteLength(): number {
    return this.words.byteLength;
  }

  has(bit: number): boolean {
    const word = this.words[bit >>> 5];
    return word !== undefined && (word & (1 << (bit & 31))) !== 0;
  }

  add(bit: number): void {
    const index = bit >>> 5;
    if (index >= this.words.length) this.words = resized(this.words, Math.max(index + 1, this.words.length * 2));
    (this.words[index] as number) |= 1 << (bit & 31);
  }

  delete(bit: number): void {
    const index = bit >>> 5;
    if (index < this.words.length) (this.words[index] as number) &= ~(1 << (bit & 31));
  }

  clear(): void {
    this.words.fill(0);
  }

  /** Drops the words past the highest member, which growth by doubling leaves behind. */
  trim(): void {
    let length = this.words.length;
    while (length > 0 && this.words[length - 1] === 0) length--;
    if (length < this.words.length) this.words = resized(this.words, length);
  }

  /** A transient copy (see `transient`). */
  clone(): Bitset {
    const copy = Bitset.transient(this.capacity);
    copy.words.set(this.words);
    return copy;
  }

  /**
   * An empty set for one query's intermediate results: from the scratch buffer inside
   * `withScratchBitsets`, allocated as usual outside it. Never for a set the index keeps.
   */
  static transient(capacity: number): Bitset {
    const current = scratch;
    if (current === null) return new Bitset(capacity);
    const length = (capacity + 31) >>> 5;
    const bytes = length * 4;
    if (current.usedBytes + bytes > current.buffer.byteLength) {
      // Sets already handed out keep the old buffer alive until the query ends.
      current.buffer = new ArrayBuffer(Math.max(2 * current.buffer.byteLength, 16 * bytes));
      current.usedBytes = 0;
    }
    const set = new Bitset();
    set.words = new Uint32Array(current.buffer, current.usedBytes, length).fill(0);
    current.usedBytes += bytes;
    return set;
  }

  and(other: Bitset): this {
    const mine = this.words;
    const theirs = other.words;
    const shared = Math.min(mine.length, theirs.length);
    for (let i = 0; i < shared; i++) (mine[i] as number) &= theirs[i] as number;
    mine.fill(0, shared);
    return this;
  }

  or(other: Bitset): this {
    const theirs = other.words;
    if (theirs.length > this.words.length) this.words = resized(this.words, theirs.length);
    const mine = this.words;
    for (let i = 0; i < theirs.length; i++) (mine[i] as number) |= theirs[i] as number;
    return this;
  }

  andNot(other: Bitset): this {
    const mine = this.words;
    const theirs = other.words;
    const shared = Math.min(mine.length, theirs.length);
    for (let i = 0; i < shared; i++) (mine[i] as number) &= ~(theirs[i] as number);
    return this;
  }

  isEmpty(): boolean {
    const words = this.words;
    for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
    return true;
  }

  count(): number {
    const words = this.words;
    let total = 0;
    for (let i = 0; i < words.length; i++) {
      let word = words[i] as number;
      if (word === 0) continue;
      word -= (word >>> 1) & 0x55555555;
      word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
      word = (word + (word >>> 4)) & 0x0f0f0f0f;
      word += word >>> 8;
      total += (word + (word >>> 16)) & 0x3f;
    }
    return total;
  }

  /** Members in ascending order. */
  forEach(visit: (bit: number) => void): void {
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let word = words[i] as number;
      while (word !== 0) {
        const lowest = word & -word;
        visit((i << 5) + 31 - Math.clz32(lowest));
        word ^= lowest;
      }
    }
  }

  /** Keeps the members `keep` accepts. */
  retain(keep: (bit: number) => boolean): this {
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let word = words[i] as number;
      let kept = word;
      while (word !== 0) {
        const lowest = word & -word;
        if (!keep((i << 5) + 31 - Math.clz32(lowest))) kept ^= lowest;
        word ^= lowest;
      }
      words[i] = kept;
    }
    return this;
  }

  /**
   * Keeps the members whose value in `values` lies in [low, high] (a NaN never does). The range
   * filters' loop, without a callback per member: several times faster than `retain`.
   */
  retainInRange(values: Float64Array, low: number, high: number): this {
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let word = words[i] as number;
      let kept = word;
      while (word !== 0) {
        const lowest = word & -word;
        const value = values[(i << 5) + 31 - Math.clz32(lowest)] as number;
        if (!(value >= low && value <= high)) kept ^= lowest;
        word ^= lowest;
      }
      words[i] = kept;
    }
    return this;
  }

  toArray(): number[] {
    const members: number[] = [];
    this.forEach((bit) => members.push(bit));
    return members;
  }

  static of(members: Iterable<number>, capacity = 0): Bitset {
    const set = new Bitset(capacity);
    for (const member of members) set.add(member);
    return set;
  }
}
