/**
 * Properties by grid cell of latitude and longitude, to find the candidates of a radius or a drawn
 * area without testing every property. Cells of 0.05° (about 5.5 km by 3.7 km in France) keep a
 * 10 km radius to a few dozen cells and the densest cells (central Paris) to a few thousand
 * properties. Unlike a static k-d tree, a cell takes a moved or new property in O(log n).
 *
 * Only candidates: a cell overlapping the area holds properties outside it, so the caller tests
 * each one exactly. Cell numbers never decrease as latitude or longitude grow (IEEE addition,
 * division and floor are monotonic), so every point inside a box lies in a cell of the box's cell
 * range, edges included.
 */
import type { Bitset } from './bitset';
import { MAP_ENTRY_BYTES } from './memory-estimate';
import { PostingLists } from './posting-lists';
import type { SlabState } from './slab';
import { withCapacity } from './typed-arrays';

/** Degrees; `west` ≤ `east` and `south` ≤ `north`. */
export interface LatLonBox {
  south: number;
  north: number;
  west: number;
  east: number;
}

export interface GeoGridState {
  cellDegrees: number;
  listOfCell: [cell: number, list: number][];
  docsOfList: SlabState;
  cellOfDoc: Int32Array<ArrayBuffer>;
}

export class GeoGrid {
  private readonly rows: number;
  private readonly columns: number;
  private readonly listOfCell = new Map<number, number>();
  private readonly docsOfList = new PostingLists();
  /** Cell plus one; zero for a document not in the grid. */
  private cellOfDoc = new Int32Array(0);

  constructor(readonly cellDegrees = 0.05) {
    this.rows = Math.ceil(180 / cellDegrees);
    this.columns = Math.ceil(360 / cellDegrees);
  }

  exportState(): GeoGridState {
    return { cellDegrees: this.cellDegrees, listOfCell: [...this.listOfCell], docsOfList: this.docsOfList.exportState(), cellOfDoc: this.cellOfDoc };
  }

  importState(state: GeoGridState): void {
    if (state.cellDegrees !== this.cellDegrees) throw new Error(`snapshot grid cells are ${state.cellDegrees}°, not ${this.cellDegrees}°`);
    this.listOfCell.clear();
    for (const [cell, list] of state.listOfCell) this.listOfCell.set(cell, list);
    this.docsOfList.importState(state.docsOfList);
    this.cellOfDoc = state.cellOfDoc;
  }

  /** Places the document at the point, or nowhere when it has none. */
  place(doc: number, point: { lat: number; lon: number } | null): void {
    this.remove(doc);
    // A non-finite coordinate is no place at all: no distance or edge test can accept it.
    if (point === null || !Number.isFinite(point.lat) || !Number.isFinite(point.lon)) return;
    const cell = this.rowOf(point.lat) * this.columns + this.columnOf(point.lon);
    let list = this.listOfCell.get(cell);
    if (list === undefined) this.listOfCell.set(cell, (list = this.listOfCell.size));
    this.docsOfList.add(list, doc);
    this.cellOfDoc = withCapacity(this.cellOfDoc, doc + 1);
    this.cellOfDoc[doc] = cell + 1;
  }

  remove(doc: number): void {
    const cell = (this.cellOfDoc[doc] ?? 0) - 1;
    if (cell < 0) return;
    this.docsOfList.remove(this.listOfCell.get(cell) as number, doc);
    this.cellOfDoc[doc] = 0;
  }

  /** Adds to `into` every document in a cell that overlaps the box. */
  collect(box: LatLonBox, into: Bitset): void {
    const firstRow = this.rowOf(box.south);
    const lastRow = this.rowOf(box.north);
    const firstColumn = this.columnOf(box.west);
    const lastColumn = this.columnOf(box.east);
    if (firstRow > lastRow || firstColumn > lastColumn) return;
    const boxCells = (lastRow - firstRow + 1) * (lastColumn - firstColumn + 1);
    if (boxCells > this.listOfCell.size) {
      // A box larger than the occupied cells (a region, a country): walk those instead.
      for (const [cell, list] of this.listOfCell) {
        const row = Math.floor(cell / this.columns);
        const column = cell - row * this.columns;
        if (row >= firstRow && row <= lastRow && column >= firstColumn && column <= lastColumn) this.docsOfList.orInto(list, into);
      }
      return;
    }
    for (let row = firstRow; row <= lastRow; row++) {
      for (let column = firstColumn; column <= lastColumn; column++) {
        const list = this.listOfCell.get(row * this.columns + column);
        if (list !== undefined) this.docsOfList.orInto(list, into);
      }
    }
  }

  get byteLength(): number {
    return this.docsOfList.byteLength + this.cellOfDoc.byteLength + this.listOfCell.size * MAP_ENTRY_BYTES;
  }

  private rowOf(lat: number): number {
    return clampIndex(Math.floor((lat + 90) / this.cellDegrees), this.rows);
  }

  private columnOf(lon: number): number {
    return clampIndex(Math.floor((lon + 180) / this.cellDegrees), this.columns);
  }
}

/** Out-of-range coordinates fall in the border cells, which keeps the cell order monotonic. */
function clampIndex(index: number, length: number): number {
  return index < 0 ? 0 : index >= length ? length - 1 : index;
}
