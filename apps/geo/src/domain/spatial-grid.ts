import { type BBox, type LatLon, haversineKm, kmToLatDegrees, kmToLonDegrees } from './geo-math';

/**
 * Fixed-size lat/lon bucket index over integer item ids.
 *
 * A uniform grid beats a tree here: the items (communes, POIs) are spread fairly evenly at the
 * scale of a cell, the set is built once and never mutated, and a query only has to walk a few
 * neighbouring buckets. Items can be registered as points or as boxes (a box lands in every cell it
 * overlaps, which is how "whose extent touches this area" candidates are found).
 */
export class SpatialGrid {
  private readonly cells = new Map<number, number[]>();

  constructor(readonly cellDegrees = 0.1) {}

  private cellIndex(degrees: number): number {
    return Math.floor(degrees / this.cellDegrees);
  }

  // Latitude index in the high part, longitude in the low part; both offset to stay positive.
  private key(latIndex: number, lonIndex: number): number {
    return (latIndex + 100_000) * 200_000 + (lonIndex + 100_000);
  }

  private push(key: number, id: number): void {
    const bucket = this.cells.get(key);
    if (bucket) bucket.push(id);
    else this.cells.set(key, [id]);
  }

  insertPoint(id: number, point: LatLon): void {
    this.push(this.key(this.cellIndex(point.lat), this.cellIndex(point.lon)), id);
  }

  insertBox(id: number, box: BBox): void {
    const [west, south, east, north] = box;
    for (let la = this.cellIndex(south); la <= this.cellIndex(north); la++) {
      for (let lo = this.cellIndex(west); lo <= this.cellIndex(east); lo++) this.push(this.key(la, lo), id);
    }
  }

  /** Ids registered in cells overlapping `box`, each once. */
  queryBox(box: BBox): number[] {
    const [west, south, east, north] = box;
    const seen = new Set<number>();
    for (let la = this.cellIndex(south); la <= this.cellIndex(north); la++) {
      for (let lo = this.cellIndex(west); lo <= this.cellIndex(east); lo++) {
        const bucket = this.cells.get(this.key(la, lo));
        if (bucket) for (const id of bucket) seen.add(id);
      }
    }
    return [...seen];
  }

  /**
   * Closest point-registered item within `maxKm`, by expanding square rings of cells until no
   * unvisited cell can hold anything closer than the best found so far.
   */
  nearest(
    target: LatLon,
    positionOf: (id: number) => LatLon | null,
    maxKm: number,
    accept: (id: number) => boolean = () => true,
  ): { id: number; distanceKm: number } | null {
    const latIndex = this.cellIndex(target.lat);
    const lonIndex = this.cellIndex(target.lon);
    // Smallest cell side in km around the target: anything outside ring r is at least r sides away.
    const sideKm = Math.min(
      this.cellDegrees / kmToLatDegrees(1),
      this.cellDegrees / kmToLonDegrees(1, Math.min(89, Math.abs(target.lat) + this.cellDegrees)),
    );
    const maxRing = Math.ceil(maxKm / sideKm) + 1;
    let best: { id: number; distanceKm: number } | null = null;
    for (let ring = 0; ring <= maxRing; ring++) {
      if (best && best.distanceKm <= (ring - 1) * sideKm) break;
      for (let la = latIndex - ring; la <= latIndex + ring; la++) {
        const onEdgeRow = la === latIndex - ring || la === latIndex + ring;
        const step = onEdgeRow ? 1 : 2 * ring;
        for (let lo = lonIndex - ring; lo <= lonIndex + ring; lo += Math.max(1, step)) {
          const bucket = this.cells.get(this.key(la, lo));
          if (!bucket) continue;
          for (const id of bucket) {
            if (!accept(id)) continue;
            const position = positionOf(id);
            if (!position) continue;
            const distanceKm = haversineKm(target, position);
            if (distanceKm <= maxKm && (!best || distanceKm < best.distanceKm)) best = { id, distanceKm };
          }
        }
      }
    }
    return best;
  }
}
