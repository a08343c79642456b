/**
 * Sorted lists of document numbers, one per key (a token, a place, a grid cell), all in one slab.
 *
 * Sorted so that membership is a binary search and a replaced document's entry can be found and
 * removed; new documents take the highest numbers, so loading appends at the end of each list.
 * A list that empties gives its room back: tokens and places that no document uses any more keep
 * their key but no memory.
 */
import { Bitset } from './bitset';
import { Slab, type SlabState } from './slab';

export class PostingLists {
  private readonly slab = new Slab({ docs: Uint32Array });

  get byteLength(): number {
    return this.slab.byteLength;
  }

  exportState(): SlabState {
    return this.slab.exportState();
  }

  importState(state: SlabState): void {
    this.slab.importState(state);
  }

  /** Entries over all lists. */
  get entries(): number {
    return this.slab.liveRows;
  }

  size(list: number): number {
    return this.slab.count(list);
  }

  has(list: number, doc: number): boolean {
    const start = this.slab.start(list);
    const end = start + this.slab.count(list);
    const at = lowerBound(this.slab.columns.docs, start, end, doc);
    return at < end && this.slab.columns.docs[at] === doc;
  }

  /** False when the document was already listed. */
  add(list: number, doc: number): boolean {
    const count = this.slab.count(list);
    let start = this.slab.start(list);
    let docs = this.slab.columns.docs;
    let position = count;
    if (count > 0 && (docs[start + count - 1] as number) >= doc) {
      position = lowerBound(docs, start, start + count, doc) - start;
      if (docs[start + position] === doc) return false;
    }
    start = this.slab.resize(list, count + 1, true);
    docs = this.slab.columns.docs;
    if (position < count) docs.copyWithin(start + position + 1, start + position, start + count);
    docs[start + position] = doc;
    return true;
  }

  /** False when the document was not listed. */
  remove(list: number, doc: number): boolean {
    const count = this.slab.count(list);
    const start = this.slab.start(list);
    const docs = this.slab.columns.docs;
    const at = lowerBound(docs, start, start + count, doc);
    if (at === start + count || docs[at] !== doc) return false;
    if (count === 1) {
      this.slab.release(list);
      return true;
    }
    docs.copyWithin(at, at + 1, start + count);
    this.slab.resize(list, count - 1, true);
    return true;
  }

  /** Empties the list and hands its room back. */
  clear(list: number): void {
    this.slab.release(list);
  }

  forEach(list: number, visit: (doc: number) => void): void {
    const start = this.slab.start(list);
    const end = start + this.slab.count(list);
    const docs = this.slab.columns.docs;
    for (let i = start; i < end; i++) visit(docs[i] as number);
  }

  /** Adds the list's documents to `into`. */
  orInto(list: number, into: Bitset): void {
    const start = this.slab.start(list);
    const end = start + this.slab.count(list);
    const docs = this.slab.columns.docs;
    for (let i = start; i < end; i++) into.add(docs[i] as number);
  }

  /** The list's documents that are also in `within`, as a new transient set of `within`'s capacity. */
  keepIn(list: number, within: Bitset): Bitset {
    const kept = Bitset.transient(within.capacity);
    const start = this.slab.start(list);
    const end = start + this.slab.count(list);
    const docs = this.slab.columns.docs;
    for (let i = start; i < end; i++) {
      const doc = docs[i] as number;
      if (within.has(doc)) kept.add(doc);
    }
    return kept;
  }

  toArray(list: number): number[] {
    const docs: number[] = [];
    this.forEach(list, (doc) => docs.push(doc));
    return docs;
  }

  compact(trim: boolean): void {
    this.slab.compact(trim);
  }
}

/** First index in [from, to) whose value is at least `value`. */
function lowerBound(values: Uint32Array, from: number, to: number, value: number): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
