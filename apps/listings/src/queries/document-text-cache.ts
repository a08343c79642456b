import { LRUCache } from 'lru-cache';

/** About 5,000 documents of 5 KB: the pages clients keep asking for (first pages of common searches). */
const DEFAULT_MAX_CHARACTERS = 24 * 1024 * 1024;

/**
 * The JSON text of recently served property documents, bounded by size. A page is answered with
 * documents' text; reading a document from the store and encoding it again costs more than the
 * search. The search-index projection forgets a document once a change to it is committed.
 */
export class DocumentTextCache {
  private readonly texts: LRUCache<string, string>;
  /** Moves on every change: a text read before a change must not be kept after it. */
  private changes = 0;

  constructor(maxCharacters = DEFAULT_MAX_CHARACTERS) {
    this.texts = new LRUCache<string, string>({ maxSize: maxCharacters, sizeCalculation: (text) => Math.max(1, text.length) });
  }

  get(id: string): string | undefined {
    return this.texts.get(id);
  }

  /** Taken before reading a document; `remember` keeps its text only if nothing changed meanwhile. */
  version(): number {
    return this.changes;
  }

  remember(id: string, text: string, version: number): void {
    if (version === this.changes) this.texts.set(id, text);
  }

  forget(id: string): void {
    this.changes++;
    this.texts.delete(id);
  }

  clear(): void {
    this.changes++;
    this.texts.clear();
  }

  get size(): number {
    return this.texts.size;
  }
}
