import { randomBytes } from 'node:crypto';
import type { YieldToEventLoop } from '../scheduling/event-loop-slice';

export interface SlicedParseOptions {
  /** A text whose longest array is shorter than this is parsed whole. */
  minArrayChars?: number;
  /** Characters of the array parsed in one piece (32 KB: about half a millisecond of `JSON.parse`). */
  pieceChars?: number;
}

/**
 * `JSON.parse` of a large text whose bulk is one array (a batch of a thousand advert snapshots:
 * 1.5 MB), in pieces between which the event loop turns: the array a few dozen elements at a time,
 * the rest of the text once with a placeholder where the array was.
 *
 * Parsed whole, such a batch held listings' event loop 90 to 140 ms at 200,000 properties: the
 * parse itself, and the young-generation collections its ten megabytes of live objects set off in
 * the same turn (CPU profiles of the listings-scale stalls). The parsing stays V8's own: the
 * array is cut between elements into pieces of about 32 KB, each parsed as an array of its own;
 * only the cuts are found here, by a pass over the text for its longest array and one over that
 * array. (Streaming JSON parsers tokenize in JavaScript, at several times the CPU of `JSON.parse`.)
 *
 * The result is what `JSON.parse` gives, and a text `JSON.parse` refuses is refused (a
 * `SyntaxError`), whichever piece holds the fault.
 */
export async function parseJsonInSlices(text: string, yieldToEventLoop: YieldToEventLoop, options: SlicedParseOptions = {}): Promise<unknown> {
  const { minArrayChars = 64 * 1024, pieceChars = 32 * 1024 } = options;
  const array = largestArray(text);
  if (array === null || array.end - array.start < minArrayChars) return JSON.parse(text);
  const placeholder = `"${randomBytes(12).toString('hex')}"`;
  // A text that holds the placeholder already (never, in practice) is parsed whole.
  if (text.includes(placeholder)) return JSON.parse(text);
  const outer: unknown = JSON.parse(text.slice(0, array.start) + placeholder + text.slice(array.end + 1));

  const elements: unknown[] = [];
  const pieces = pieceBounds(text, array.start, array.end, pieceChars);
  for (let i = 0; i < pieces.length; i += 2) {
    const piece = text.slice(pieces[i], pieces[i + 1]);
    // A blank piece between cuts is an empty element (`[1,,2]`, `[1,]`), which JSON refuses.
    if (pieces.length > 2 && piece.trim() === '') throw new SyntaxError('Unexpected token , in JSON array');
    for (const element of JSON.parse(`[${piece}]`) as unknown[]) elements.push(element);
    const due = yieldToEventLoop();
    if (due) await due;
  }
  let placed: unknown = NOT_FOUND;
  try {
    placed = putInPlace(outer, JSON.parse(placeholder) as string, elements);
  } catch {
    // Deeper than the stack allows around the array: JSON.parse has no such limit.
  }
  // Not found again (a later duplicate key replaced the array, `{"a":[…],"a":1}`): parsed whole.
  return placed === NOT_FOUND ? JSON.parse(text) : placed;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/** Where the longest array of the text starts and ends (its brackets), or null if the brackets do not pair up. */
function largestArray(text: string): { start: number; end: number } | null {
  const opened: number[] = [];
  let best: { start: number; end: number } | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i);
      if (i < 0) return null;
    } else if (c === OPEN_ARRAY) {
      opened.push(i);
    } else if (c === CLOSE_ARRAY) {
      const start = opened.pop();
      if (start === undefined) return null;
      if (best === null || i - start > best.end - best.start) best = { start, end: i };
    }
  }
  return opened.length === 0 ? best : null;
}

/**
 * The index of the quote that closes the string opened at `open`, or -1 when it is not closed. It
 * jumps from quote to quote (`indexOf`, native): most of a batch's text is inside strings.
 */
function endOfString(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Escaped when an odd number of backslashes stands before it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * Start and end (exclusive) of each piece of the array between the brackets at `open` and
 * `close`, flat: cut at the first comma of the array's own depth after every `pieceChars`.
 */
function pieceBounds(text: string, open: number, close: number, pieceChars: number): number[] {
  const bounds: number[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = endOfString(text, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    else if (c === COMMA && depth === 0 && i - start >= pieceChars) {
      bounds.push(start, i);
      start = i + 1;
    }
  }
  bounds.push(start, close);
  return bounds;
}

const NOT_FOUND = Symbol('not found');

/** `value` with the one string equal to `placeholder` replaced by `array`, in place (a parsed text's own objects). */
function putInPlace(value: unknown, placeholder: string, array: unknown[]): unknown {
  if (value === placeholder) return array;
  if (typeof value !== 'object' || value === null) return NOT_FOUND;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
  for (const [key, child] of entries) {
    const placed = putInPlace(child, placeholder, array);
    if (placed === NOT_FOUND) continue;
    // defineProperty: a parsed `__proto__` key is an own property, which assignment would not write.
    if (placed !== child) Object.defineProperty(value, key, { value: placed, writable: true, enumerable: true, configurable: true });
    return value;
  }
  return NOT_FOUND;
}
