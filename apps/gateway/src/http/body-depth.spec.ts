import { depthBeyond } from './body-depth';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

describe('depthBeyond', () => {
  it('measures the nesting of arrays and objects', () => {
    expect(depthBeyond('text', 64)).toBe(0);
    expect(depthBeyond({ a: 1, b: [1, { c: 2 }] }, 64)).toBe(3);
    expect(depthBeyond(nested(64), 64)).toBe(64);
  });

  it('stops as soon as the limit is passed, without recursion, however deep the body', () => {
    expect(depthBeyond(nested(65), 64)).toBe(65);
    expect(depthBeyond(nested(200_000), 64)).toBe(65);
  });
});
