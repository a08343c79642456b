import { isPlainObject } from './plain-object';

describe('isPlainObject', () => {
  it('accepts object literals, parsed JSON and null-prototype objects', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(JSON.parse('{"a":{"b":1}}'))).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
  });

  it('refuses arrays, byte arrays, dates, class instances and primitives', () => {
    class Point {
      x = 1;
    }
    for (const value of [[], new Uint8Array(2), Buffer.from('{}'), new Date(), new Point(), new Map(), null, undefined, 'x', 1, true]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});
