/**
 * The tokens the index has seen, each with a stable id, and their sorted order.
 *
 * Lookup is an open-addressing hash table of ids over the token text, probed with a range of a
 * longer text: loading a property interns a few hundred tokens straight out of its texts, without
 * cutting a string for each (V8 would hand out slices that keep the whole text alive) and without
 * a Map entry per token. A new token is stored as a detached copy for the same reason.
 *
 * Sorted order exists for prefix search: the tokens a prefix finds are exactly those of one
 * contiguous range of the order (JavaScript compares strings by UTF-16 code units, as
 * `startsWith` does). Ids never change, since postings and token sequences hold them; the order is
 * a permutation of ids, merged lazily: tokens seen since the last prefix query wait in an unsorted
 * list and are sorted into place by the next one, so loading 200,000 documents never pays for
 * keeping the order current.
 *
 * Tokens are never forgotten: an id no document uses any more costs its string and a slot only.
 */
import { ARRAY_SLOT_BYTES } from './memory-estimate';

/** Positions [from, to) in sorted order. */
export interface RankRange {
  from: number;
  to: number;
}

/** V8 copies substrings shorter than this; longer ones would be slices of their text. */
const SLICE_MIN_LENGTH = 13;

export interface TokenDictionaryState {
  tokens: string[];
  slots: Int32Array<ArrayBuffer>;
  sorted: Uint32Array<ArrayBuffer>;
  unsorted: number[];
}

export class TokenDictionary {
  private readonly tokens: string[] = [];
  /** Id plus one per slot, zero when free; at most half full. */
  private slots = new Int32Array(1 << 12);
  /** Ids in token order, all of them but those still in `unsorted`. */
  private sorted = new Uint32Array(0);
  private readonly unsorted: number[] = [];

  get size(): number {
    return this.tokens.length;
  }

  exportState(): TokenDictionaryState {
    return { tokens: this.tokens, slots: this.slots, sorted: this.sorted, unsorted: this.unsorted };
  }

  /** Into an empty dictionary. The slots stay valid: `hashOf` depends on the token alone. */
  importState(state: TokenDictionaryState): void {
    if (this.tokens.length > 0) throw new Error('a token dictionary is restored into an empty one only');
    for (const token of state.tokens) this.tokens.push(token);
    for (const id of state.unsorted) this.unsorted.push(id);
    this.slots = state.slots;
    this.sorted = state.sorted;
  }

  idOf(token: string): number | undefined {
    const entry = this.slots[this.slotOf(token, 0, token.length)] as number;
    return entry === 0 ? undefined : entry - 1;
  }

  intern(token: string): number {
    return this.internRange(token, 0, token.length);
  }

  /** The id of `text.slice(start, end)`, added when new. */
  internRange(text: string, start: number, end: number): number {
    const slot = this.slotOf(text, start, end);
    const entry = this.slots[slot] as number;
    if (entry !== 0) return entry - 1;
    const id = this.tokens.length;
    this.tokens.push(detachedCopy(text, start, end));
    this.slots[slot] = id + 1;
    this.unsorted.push(id);
    if (this.tokens.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  tokenOf(id: number): string {
    const token = this.tokens[id];
    if (token === undefined) throw new RangeError(`No token has id ${id}`);
    return token;
  }

  /** The ranks of the tokens starting with `prefix` (empty when none does). */
  prefixRange(prefix: string): RankRange {
    this.sortPending();
    const from = this.firstRank((token) => token >= prefix);
    const to = this.firstRank((token) => !token.startsWith(prefix), from);
    return { from, to };
  }

  idAtRank(rank: number): number {
    this.sortPending();
    if (rank < 0 || rank >= this.sorted.length) throw new RangeError(`No token has rank ${rank}`);
    return this.sorted[rank] as number;
  }

  /** Estimated heap bytes of the strings, the table and the order. */
  byteLength(stringBytes: (text: string) => number): number {
    let total = this.slots.byteLength + this.sorted.byteLength + (this.tokens.length + this.unsorted.length) * ARRAY_SLOT_BYTES;
    for (const token of this.tokens) total += stringBytes(token);
    return total;
  }

  /** The slot holding the range's token, or the free slot where it belongs. */
  private slotOf(text: string, start: number, end: number): number {
    const mask = this.slots.length - 1;
    const length = end - start;
    let slot = hashOf(text, start, end) & mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return slot;
      const token = this.tokens[entry - 1] as string;
      if (token.length === length && text.startsWith(token, start)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    this.tokens.forEach((token, id) => {
      let slot = hashOf(token, 0, token.length) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    });
    this.slots = slots;
  }

  /** The first rank from `from` on whose token satisfies `after`, which must be monotonic. */
  private firstRank(after: (token: string) => boolean, from = 0): number {
    let low = from;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (after(this.tokens[this.sorted[middle] as number] as string)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private sortPending(): void {
    if (this.unsorted.length === 0) return;
    const tokens = this.tokens;
    const byToken = (a: number, b: number): number => ((tokens[a] as string) < (tokens[b] as string) ? -1 : 1);
    const incoming = this.unsorted.splice(0).sort(byToken);
    const merged = new Uint32Array(this.sorted.length + incoming.length);
    let target = 0;
    let from = 0;
    for (const id of incoming) {
      const token = tokens[id] as string;
      // Everything sorted before the incoming token moves first, in one block.
      const until = this.firstRank((other) => other > token, from);
      merged.set(this.sorted.subarray(from, until), target);
      target += until - from;
      from = until;
      merged[target++] = id;
    }
    merged.set(this.sorted.subarray(from), target);
    this.sorted = merged;
  }
}

/**
 * FNV-1a over the UTF-16 code units of the range. The multiplication by the FNV prime (2^24 + 2^8
 * + 0x93) is spelled as shifts: the same bits as `Math.imul`, which V8 does not inline in a
 * sandboxed context such as Jest's, where it made loading thirty times slower.
 */
function hashOf(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) {
    hash ^= text.charCodeAt(i);
    hash = (hash + (hash << 1) + (hash << 4) + (hash << 7) + (hash << 8) + (hash << 24)) | 0;
  }
  return hash >>> 0;
}

function detachedCopy(text: string, start: number, end: number): string {
  if (end - start < SLICE_MIN_LENGTH) return text.slice(start, end);
  const codes: number[] = [];
  for (let i = start; i < end; i++) codes.push(text.charCodeAt(i));
  return String.fromCharCode(...codes);
}
