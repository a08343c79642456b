/**
 * Deep copy for stored documents. Documents are JSON-like plus Dates, for which a plain
 * recursive copy is several times cheaper than `structuredClone`; anything more exotic (Map,
 * typed arrays, class instances...) goes through `structuredClone`, which also rejects what
 * cannot be stored at all, such as functions.
 */
export function cloneDocument<T>(value: T): T {
  return cloneValue(value) as T;
}

function cloneValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol') {
      throw new TypeError(`Cannot store a ${typeof value} in a document`);
    }
    return value;
  }
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = cloneValue(value[i]);
    return copy;
  }
  if (value instanceof Date) return new Date(value.getTime());
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const child = cloneValue((value as Record<string, unknown>)[key]);
      // Assigning `__proto__` would replace the copy's prototype instead of adding a field.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
      else copy[key] = child;
    }
    return copy;
  }
  return structuredClone(value);
}
