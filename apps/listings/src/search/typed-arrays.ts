/**
 * Growth of the typed arrays the search index keeps its columns in. Typed arrays cannot grow in
 * place, so a full one is copied into a larger one; growing geometrically keeps the copies
 * amortised O(1) per item. Past a million items the factor drops to 1.5: a doubling of a 100 MB
 * column would briefly hold 300 MB.
 */

export type NumericArray = Float64Array | Uint32Array | Int32Array | Uint16Array | Uint8Array | Int8Array;

export type NumericArrayConstructor =
  | Float64ArrayConstructor
  | Uint32ArrayConstructor
  | Int32ArrayConstructor
  | Uint16ArrayConstructor
  | Uint8ArrayConstructor
  | Int8ArrayConstructor;

/** Named columns, one typed array each, as a spec of constructors describes them. */
export type ColumnSpec = Readonly<Record<string, NumericArrayConstructor>>;
export type ColumnsOf<S extends ColumnSpec> = { [K in keyof S]: InstanceType<S[K]> };

const LARGE = 1 << 20;

/** The length to grow to so that `needed` items fit. */
export function grownLength(current: number, needed: number): number {
  let length = Math.max(current, 16);
  while (length < needed) length = length < LARGE ? length * 2 : length + (length >>> 1);
  return length;
}

/** `array` itself when `needed` items fit, else a longer copy (the new tail is zero). */
export function withCapacity<T extends NumericArray>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  return resized(array, grownLength(array.length, needed));
}

/** A copy of `array` of exactly `length` items, truncated or zero-padded. */
export function resized<T extends NumericArray>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(length >= array.length ? array : (array.subarray(0, length) as T));
  return copy;
}

export function allocateColumns<S extends ColumnSpec>(spec: S, length: number): ColumnsOf<S> {
  const columns = {} as Record<string, NumericArray>;
  for (const [name, constructor] of Object.entries(spec)) columns[name] = new constructor(length);
  return columns as ColumnsOf<S>;
}

export function columnList<S extends ColumnSpec>(columns: ColumnsOf<S>): NumericArray[] {
  return Object.values(columns) as NumericArray[];
}

export function columnsByteLength<S extends ColumnSpec>(columns: ColumnsOf<S>): number {
  return columnList(columns).reduce((sum, column) => sum + column.byteLength, 0);
}
