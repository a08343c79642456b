import { DocumentTextCache } from './document-text-cache';

describe('DocumentTextCache', () => {
  it('keeps what it is given and forgets a changed document', () => {
    const cache = new DocumentTextCache();
    cache.remember('a', '{"v":1}', cache.version());
    expect(cache.get('a')).toBe('{"v":1}');
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not keep a text read before a change that was committed while reading', () => {
    const cache = new DocumentTextCache();
    const version = cache.version();
    // The read is in flight when a change to some document is committed.
    cache.forget('a');
    cache.remember('a', '{"stale":true}', version);
    expect(cache.get('a')).toBeUndefined();
    cache.remember('a', '{"fresh":true}', cache.version());
    expect(cache.get('a')).toBe('{"fresh":true}');
  });

  it('stays within its size, dropping the least recently used texts first', () => {
    const cache = new DocumentTextCache(100);
    for (const id of ['a', 'b', 'c']) cache.remember(id, 'x'.repeat(40), cache.version());
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    cache.remember('huge', 'y'.repeat(500), cache.version());
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('empties on clear (a rebuild)', () => {
    const cache = new DocumentTextCache();
    cache.remember('a', '{}', cache.version());
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
