import type { Ring } from './criteria';
import { isPointInRing } from './point-in-polygon';

const SQUARE: Ring = [
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
  [0, 0],
];

// A "U" open to the north: its notch (x 4 to 6, y above 3) is outside.
const U_SHAPE: Ring = [
  [0, 0],
  [10, 0],
  [10, 10],
  [6, 10],
  [6, 3],
  [4, 3],
  [4, 10],
  [0, 10],
  [0, 0],
];

describe('point in ring', () => {
  it('tells inside from outside', () => {
    expect(isPointInRing([5, 5], SQUARE)).toBe(true);
    expect(isPointInRing([15, 5], SQUARE)).toBe(false);
    expect(isPointInRing([-0.001, 5], SQUARE)).toBe(false);
  });

  it('counts points on an edge or a vertex as inside', () => {
    expect(isPointInRing([10, 5], SQUARE)).toBe(true);
    expect(isPointInRing([5, 0], SQUARE)).toBe(true);
    expect(isPointInRing([10, 10], SQUARE)).toBe(true);
  });

  it('handles concave rings', () => {
    expect(isPointInRing([5, 8], U_SHAPE)).toBe(false);
    expect(isPointInRing([5, 2], U_SHAPE)).toBe(true);
    expect(isPointInRing([2, 8], U_SHAPE)).toBe(true);
    expect(isPointInRing([8, 8], U_SHAPE)).toBe(true);
  });

  it('is unaffected by a ray passing through a vertex', () => {
    // The ray from (2, 3) to +x passes through the vertices (4, 3) and (6, 3).
    expect(isPointInRing([2, 3], U_SHAPE)).toBe(true);
    expect(isPointInRing([-1, 3], U_SHAPE)).toBe(false);
  });

  it('does not depend on the winding direction', () => {
    const reversed = [...SQUARE].reverse();
    expect(isPointInRing([5, 5], reversed)).toBe(true);
    expect(isPointInRing([15, 5], reversed)).toBe(false);
  });
});
