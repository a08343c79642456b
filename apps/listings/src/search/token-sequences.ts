/**
 * The token ids of each searched text of a document, in order. Phrases need them: "salle de bain"
 * holds only where its tokens follow each other in one text, which postings cannot tell. They are
 * also what a replaced or removed document's postings are found from.
 *
 * Stored as variable-length integers, 7 bits a byte, low bits first: ids are handed out in order
 * of first appearance, so the words every listing uses get small ids and take one or two bytes
 * instead of four, and descriptions are the bulk of the index. Ids are stored plus one, so a zero
 * byte can only be the end of a text. The encoding is self-delimiting (every byte but a number's
 * last has its high bit set), which lets a phrase of whole words be found as a byte pattern,
 * without decoding, at any position that follows a number's last byte.
 */
import type { Bitset } from './bitset';
import { Slab, type SlabState } from './slab';
import { withCapacity } from './typed-arrays';

export class TokenSequences {
  private readonly slab = new Slab({ bytes: Uint8Array });

  exportState(): SlabState {
    return this.slab.exportState();
  }

  importState(state: SlabState): void {
    this.slab.importState(state);
  }
  /** Decoding scratch, shared by every call: a text's ids are only valid during its visit. */
  private scratch = new Uint32Array(256);

  get byteLength(): number {
    return this.slab.byteLength + this.scratch.byteLength;
  }

  /** `ids` holds the texts one after the other, `textLengths` how many ids each has. */
  write(doc: number, ids: ArrayLike<number>, textLengths: readonly number[]): void {
    let idCount = 0;
    let length = textLengths.length;
    for (const textLength of textLengths) {
      for (let i = idCount; i < idCount + textLength; i++) length += encodedLength((ids[i] as number) + 1);
      idCount += textLength;
    }
    if (idCount === 0) {
      this.slab.release(doc);
      return;
    }
    let at = this.slab.resize(doc, length, false);
    const bytes = this.slab.columns.bytes;
    let next = 0;
    for (const textLength of textLengths) {
      for (const end = next + textLength; next < end; next++) at = encode((ids[next] as number) + 1, bytes, at);
      bytes[at++] = 0;
    }
  }

  release(doc: number): void {
    this.slab.release(doc);
  }

  /** Visits each text's ids until `visit` answers true; true when it did. */
  some(doc: number, visit: (ids: Uint32Array, length: number) => boolean): boolean {
    const bytes = this.slab.columns.bytes;
    const start = this.slab.start(doc);
    const end = start + this.slab.count(doc);
    let length = 0;
    for (let at = start; at < end; ) {
      let value = 0;
      let scale = 1;
      let byte: number;
      do {
        byte = bytes[at++] as number;
        value += (byte & 0x7f) * scale;
        scale *= 0x80;
      } while (byte >= 0x80);
      if (value === 0) {
        if (visit(this.scratch, length)) return true;
        length = 0;
        continue;
      }
      if (length === this.scratch.length) this.scratch = withCapacity(this.scratch, length + 1);
      this.scratch[length++] = value - 1;
    }
    return false;
  }

  /**
   * Whether one text holds `pattern` (the encoding of a run of whole-word ids) at a number
   * boundary, followed, when `nextIds` is given, by a token of that set.
   */
  containsPhrase(doc: number, pattern: Uint8Array, nextIds: Bitset | null): boolean {
    const start = this.slab.start(doc);
    // A view of this document's run only, so that the native search cannot run on into others'.
    const run = this.slab.columns.bytes.subarray(start, start + this.slab.count(doc));
    const first = pattern[0] as number;
    const patternLength = pattern.length;
    const last = run.length - patternLength;
    for (let at = 0; at <= last; at++) {
      // The native search skips to the next candidate byte far faster than a loop here.
      at = run.indexOf(first, at);
      if (at < 0 || at > last) return false;
      if (at > 0 && (run[at - 1] as number) >= 0x80) continue;
      let matched = 1;
      while (matched < patternLength && run[at + matched] === pattern[matched]) matched++;
      if (matched < patternLength) continue;
      if (nextIds === null) return true;
      const next = decodeAt(run, at + patternLength);
      if (next > 0 && nextIds.has(next - 1)) return true;
    }
    return false;
  }

  /** The encoding of a run of ids, as `containsPhrase` looks for it. */
  static patternOf(ids: readonly number[]): Uint8Array {
    const pattern = new Uint8Array(ids.reduce((sum, id) => sum + encodedLength(id + 1), 0));
    let at = 0;
    for (const id of ids) at = encode(id + 1, pattern, at);
    return pattern;
  }
}

/** `value` is below 2^32 (ids are Uint32), so unsigned shifts never lose bits. */
function encode(value: number, bytes: Uint8Array, at: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[at++] = value;
  return at;
}

/** The number starting at `at`; 0 (a text's end) when `at` is past the run. */
function decodeAt(bytes: Uint8Array, at: number): number {
  let value = 0;
  let scale = 1;
  let byte: number;
  do {
    byte = bytes[at++] ?? 0;
    value += (byte & 0x7f) * scale;
    scale *= 0x80;
  } while (byte >= 0x80);
  return value;
}

function encodedLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value >>>= 7;
    length++;
  }
  return length;
}
