import { DocumentTextCache } from './document-text-cache';

const json = (text: string) => new TextEncoder().encode(text);
const textOf = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));

describe('DocumentTextCache', () => {
  it('keeps what it is given and forgets a changed document', () => {
    const cache = new DocumentTextCache();
    cache.remember('a', json('{"v":1}'), cache.version());
    expect(textOf(cache.get('a'))).toBe('{"v":1}');
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not keep a text read before a change that was committed while reading', () => {
    const cache = new DocumentTextCache();
    const version = cache.version();
    // The read is in flight when a change to some document is committed.
    cache.forget('a');
    cache.remember('a', json('{"stale":true}'), version);
    expect(cache.get('a')).toBeUndefined();
    cache.remember('a', json('{"fresh":true}'), cache.version());
    expect(textOf(cache.get('a'))).toBe('{"fresh":true}');
  });

  it('stays within its size, dropping the least recently used texts first', () => {
    const cache = new DocumentTextCache(100);
    for (const id of ['a', 'b', 'c']) cache.remember(id, json('x'.repeat(40)), cache.version());
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    cache.remember('huge', json('y'.repeat(500)), cache.version());
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('empties on clear (a rebuild)', () => {
    const cache = new DocumentTextCache();
    cache.remember('a', json('{}'), cache.version());
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
