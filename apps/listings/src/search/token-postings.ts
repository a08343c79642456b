/**
 * The documents holding each token. Most tokens are rare (a street, a reference, a typo) and keep
 * a sorted list; a token found in more than one document in 32 ("de", "appartement", "cuisine")
 * becomes a bitset, which is then smaller (N/8 bytes against 4 bytes a document) and takes a
 * document in O(1) where a long list would shift its tail. In listing texts, word frequencies
 * follow Zipf's law: a few hundred such tokens hold most of the entries.
 *
 * A dense token that loses documents stays dense until a trimming compaction finds it under half
 * the threshold: the gap keeps a token near the threshold from flipping back and forth, and
 * trimming follows a bulk load, which is when an unlucky load order could have made a rare token
 * look common.
 */
import { Bitset } from './bitset';
import { PostingLists } from './posting-lists';
import type { SlabState } from './slab';

/**
 * A list shorter than this stays a list whatever the collection's size: a bitset is not worth its
 * object below a few hundred documents. Past 2,048 documents the 1-in-32 rule decides alone.
 */
const MIN_DENSE_SIZE = 64;

export interface TokenPostingsState {
  lists: SlabState;
  /** By token: the words of its dense set, null for a token kept as a list. */
  dense: (Uint32Array | null)[];
  docLimit: number;
}

export class TokenPostings {
  private readonly lists = new PostingLists();
  private readonly dense: (Bitset | undefined)[] = [];
  /** Every document number seen is below this; a dense set is the size of this many bits. */
  private docLimit = 0;

  get byteLength(): number {
    let total = this.lists.byteLength + this.dense.length * 8;
    for (const set of this.dense) if (set !== undefined) total += set.byteLength;
    return total;
  }

  get denseTokens(): number {
    return this.dense.filter((set) => set !== undefined).length;
  }

  exportState(): TokenPostingsState {
    return { lists: this.lists.exportState(), dense: Array.from(this.dense, (set) => set?.exportState() ?? null), docLimit: this.docLimit };
  }

  importState(state: TokenPostingsState): void {
    this.lists.importState(state.lists);
    this.dense.length = 0;
    for (const words of state.dense) {
      if (words === null) {
        this.dense.push(undefined);
        continue;
      }
      const set = new Bitset();
      set.importState(words);
      this.dense.push(set);
    }
    this.docLimit = state.docLimit;
  }

  add(token: number, doc: number): void {
    if (doc >= this.docLimit) this.docLimit = doc + 1;
    const set = this.dense[token];
    if (set !== undefined) {
      set.add(doc);
      return;
    }
    this.lists.add(token, doc);
    if (this.lists.size(token) > this.denseThreshold()) this.densify(token);
  }

  remove(token: number, doc: number): void {
    const set = this.dense[token];
    if (set !== undefined) set.delete(doc);
    else this.lists.remove(token, doc);
  }

  /** The token's documents that are also in `within`, as a new set. */
  keepIn(token: number, within: Bitset): Bitset {
    const set = this.dense[token];
    return set !== undefined ? within.clone().and(set) : this.lists.keepIn(token, within);
  }

  orInto(token: number, into: Bitset): void {
    const set = this.dense[token];
    if (set !== undefined) into.or(set);
    else this.lists.orInto(token, into);
  }

  has(token: number, doc: number): boolean {
    const set = this.dense[token];
    return set !== undefined ? set.has(doc) : this.lists.has(token, doc);
  }

  compact(trim: boolean): void {
    if (trim) {
      const sparse = this.denseThreshold() / 2;
      this.dense.forEach((set, token) => {
        if (set === undefined || set.count() >= sparse) return;
        this.dense[token] = undefined;
        set.forEach((doc) => this.lists.add(token, doc));
      });
    }
    this.lists.compact(trim);
  }

  /** A list longer than this turns into a bitset, which is then the smaller of the two. */
  private denseThreshold(): number {
    return Math.max(MIN_DENSE_SIZE, this.docLimit >>> 5);
  }

  private densify(token: number): void {
    const set = new Bitset(this.docLimit);
    this.lists.orInto(token, set);
    this.lists.clear(token);
    this.dense[token] = set;
  }
}
