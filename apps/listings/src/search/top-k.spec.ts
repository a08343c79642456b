import fc from 'fast-check';
import { TopK } from './top-k';

describe('TopK', () => {
  it('keeps the first k items of the order, sorted, whatever the arrival order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(1000), { maxLength: 200 }), fc.nat(40), fc.boolean(), (items, k, descending) => {
        const compare = (a: number, b: number): number => (descending ? b - a : a - b);
        const top = new TopK(k, compare);
        items.forEach((item) => top.offer(item));
        expect(top.sorted()).toEqual([...items].sort(compare).slice(0, k));
      }),
    );
  });

  it('keeps nothing when k is 0', () => {
    const top = new TopK(0, (a, b) => a - b);
    [3, 1, 2].forEach((item) => top.offer(item));
    expect(top.sorted()).toEqual([]);
  });
});

describe('TopK with a key', () => {
  it('keeps the same items when a key consistent with the order lets it skip comparisons', () => {
    // An item is value * 1000 + tie-breaker; the key is its value alone, so equal keys still compare.
    const value = (item: number): number => Math.floor(item / 1000);
    const compare = (a: number, b: number): number => value(a) - value(b) || a - b;
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(99_999), { maxLength: 300 }), fc.nat(20), (items, k) => {
        const top = new TopK(k, compare, value);
        items.forEach((item) => top.offer(item));
        expect(top.sorted()).toEqual([...items].sort(compare).slice(0, k));
      }),
    );
  });
});
