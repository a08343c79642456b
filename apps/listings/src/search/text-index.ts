/**
 * Full-text `expressions`, answered as `matchesExpressions` answers them (see expressions.ts in
 * the criteria library): a condition holds when its word appears (`includes`) or does not
 * (`includes=false`); every condition of a group must hold; any group will do. A word is split by
 * the library's own `tokenize`; a single token is found through the postings (the exact token, or
 * every token of the prefix's range in the dictionary), a phrase through the postings of all its
 * tokens and then an adjacency check on the candidates' token sequences, since only there do
 * consecutive tokens of one text show.
 */
import { tokenize, type ExpressionCondition, type ExpressionGroup } from '@immo/property-criteria';
import { Bitset } from './bitset';
import { stringBytes } from './memory-estimate';
import type { SlabState } from './slab';
import { TokenDictionary, type TokenDictionaryState } from './token-dictionary';
import { TokenPostings, type TokenPostingsState } from './token-postings';
import { TokenSequences } from './token-sequences';
import { withCapacity } from './typed-arrays';

const SPACE = 0x20;

export interface TextIndexState {
  dictionary: TokenDictionaryState;
  postings: TokenPostingsState;
  sequences: SlabState;
  marks: Uint32Array<ArrayBuffer>;
  stamp: number;
}

export class TextIndex {
  private readonly dictionary = new TokenDictionary();
  private readonly postings = new TokenPostings();
  private readonly sequences = new TokenSequences();
  /** Scratch for a document's ids while it is written. */
  private ids = new Uint32Array(1024);
  /**
   * Per token id, the stamp of the last write that saw it: lets a write tell the tokens a document
   * gains from those it loses, and skip repeats, without building a set per document.
   */
  private marks = new Uint32Array(0);
  private stamp = 0;

  exportState(): TextIndexState {
    return {
      dictionary: this.dictionary.exportState(),
      postings: this.postings.exportState(),
      sequences: this.sequences.exportState(),
      marks: this.marks,
      stamp: this.stamp,
    };
  }

  importState(state: TextIndexState): void {
    this.dictionary.importState(state.dictionary);
    this.postings.importState(state.postings);
    this.sequences.importState(state.sequences);
    this.marks = state.marks;
    this.stamp = state.stamp;
  }

  /** `texts`: each text's tokens joined by single spaces, as search rows carry them. */
  set(doc: number, texts: readonly string[]): void {
    // Most updates change a price, not a word: then nothing here needs to change.
    if (this.holdsTexts(doc, texts)) return;
    const { count, textLengths } = this.internAll(texts);
    const [before, after] = this.nextStamps();
    const marks = this.marks;
    const lost: number[] = [];
    this.sequences.some(doc, (ids, length) => {
      for (let i = 0; i < length; i++) {
        const id = ids[i] as number;
        if (marks[id] !== before) lost.push(id);
        marks[id] = before;
      }
      return false;
    });
    for (let i = 0; i < count; i++) {
      const id = this.ids[i] as number;
      const mark = marks[id];
      if (mark === after) continue;
      if (mark !== before) this.postings.add(id, doc);
      marks[id] = after;
    }
    for (const id of lost) if (marks[id] === before) this.postings.remove(id, doc);
    this.sequences.write(doc, this.ids.subarray(0, count), textLengths);
  }

  remove(doc: number): void {
    const [before] = this.nextStamps();
    const marks = this.marks;
    this.sequences.some(doc, (ids, length) => {
      for (let i = 0; i < length; i++) {
        const id = ids[i] as number;
        if (marks[id] !== before) this.postings.remove(id, doc);
        marks[id] = before;
      }
      return false;
    });
    this.sequences.release(doc);
  }

  /** The documents of `within` that meet the expression groups (all of `within` when there are none). */
  matching(groups: readonly ExpressionGroup[], within: Bitset): Bitset {
    if (groups.length === 0) return within.clone();
    const matched = Bitset.transient(within.capacity);
    for (const group of groups) {
      // Documents another group already matched need no second look.
      let candidates = within.clone().andNot(matched);
      for (const condition of cheapestFirst(group)) {
        if (candidates.isEmpty()) break;
        const appearing = this.appearing(condition, candidates);
        if (condition.includes) candidates = appearing;
        else candidates.andNot(appearing);
      }
      matched.or(candidates);
    }
    return matched;
  }

  /** The documents of `within` whose texts hold the condition's word or phrase. */
  appearing(condition: Pick<ExpressionCondition, 'word' | 'strict'>, within: Bitset): Bitset {
    const words = tokenize(condition.word);
    const none = Bitset.transient(within.capacity);
    if (words.length === 0) return none;
    // Every token of a phrase is whole but the last, which is a prefix unless the word is strict.
    const wholeCount = condition.strict ? words.length : words.length - 1;
    const wholeIds: number[] = [];
    for (const word of words.slice(0, wholeCount)) {
      const id = this.dictionary.idOf(word);
      if (id === undefined) return none;
      wholeIds.push(id);
    }
    // Null until a posting list narrows `within`, which is the caller's and must stay untouched.
    let candidates: Bitset | null = null;
    for (const id of new Set(wholeIds)) candidates = this.postings.keepIn(id, candidates ?? within);
    let prefixIds: Bitset | null = null;
    if (!condition.strict) {
      prefixIds = this.prefixIds(words[words.length - 1] as string);
      candidates = (candidates ?? within.clone()).and(this.documentsOf(prefixIds, within.capacity));
    }
    if (candidates === null) return none;
    if (words.length === 1) return candidates;
    const pattern = TokenSequences.patternOf(wholeIds);
    return candidates.retain((doc) => this.sequences.containsPhrase(doc, pattern, prefixIds));
  }

  memoryBreakdown(): { tokenPostings: number; tokenSequences: number; tokenDictionary: number } {
    return {
      tokenPostings: this.postings.byteLength,
      tokenSequences: this.sequences.byteLength + this.ids.byteLength,
      tokenDictionary: this.dictionary.byteLength(stringBytes) + this.marks.byteLength,
    };
  }

  compact(trim: boolean): void {
    this.postings.compact(trim);
  }

  /** Whether the document's sequences spell exactly these texts; compares characters, hashes nothing. */
  private holdsTexts(doc: number, texts: readonly string[]): boolean {
    let next = 0;
    let holds = true;
    const skipEmpty = (): void => {
      while (next < texts.length && texts[next] === '') next++;
    };
    this.sequences.some(doc, (ids, length) => {
      skipEmpty();
      const text = texts[next++];
      let at = 0;
      let i = 0;
      if (text !== undefined) {
        for (; i < length; i++) {
          if (i > 0 && text.charCodeAt(at++) !== SPACE) break;
          const token = this.dictionary.tokenOf(ids[i] as number);
          if (!text.startsWith(token, at)) break;
          at += token.length;
        }
      }
      holds = text !== undefined && i === length && at === text.length;
      return !holds;
    });
    skipEmpty();
    return holds && next === texts.length;
  }

  /** Interns every token of the texts into `this.ids`; empty tokens and texts are skipped. */
  private internAll(texts: readonly string[]): { count: number; textLengths: number[] } {
    let count = 0;
    const textLengths: number[] = [];
    for (const text of texts) {
      const first = count;
      let start = 0;
      for (let i = 0; i <= text.length; i++) {
        if (i < text.length && text.charCodeAt(i) !== SPACE) continue;
        if (i > start) {
          if (count === this.ids.length) this.ids = withCapacity(this.ids, count + 1);
          this.ids[count++] = this.dictionary.internRange(text, start, i);
        }
        start = i + 1;
      }
      if (count > first) textLengths.push(count - first);
    }
    this.marks = withCapacity(this.marks, this.dictionary.size);
    return { count, textLengths };
  }

  /** Two stamps no token is marked with yet. */
  private nextStamps(): [number, number] {
    if (this.stamp >= 0xfffffff0) {
      this.marks.fill(0);
      this.stamp = 0;
    }
    this.marks = withCapacity(this.marks, this.dictionary.size);
    return [++this.stamp, ++this.stamp];
  }

  private prefixIds(prefix: string): Bitset {
    const { from, to } = this.dictionary.prefixRange(prefix);
    const ids = Bitset.transient(this.dictionary.size);
    for (let rank = from; rank < to; rank++) ids.add(this.dictionary.idAtRank(rank));
    return ids;
  }

  private documentsOf(tokenIds: Bitset, capacity: number): Bitset {
    const docs = Bitset.transient(capacity);
    tokenIds.forEach((id) => this.postings.orInto(id, docs));
    return docs;
  }
}

/** Included single words narrow fastest; phrases need sequences read; exclusions only subtract. */
function cheapestFirst(group: ExpressionGroup): ExpressionCondition[] {
  const cost = (condition: ExpressionCondition): number => (condition.includes ? 0 : 2) + (tokenize(condition.word).length > 1 ? 1 : 0);
  return [...group].sort((a, b) => cost(a) - cost(b));
}
