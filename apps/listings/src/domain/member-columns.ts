/**
 * Storage of the grouping index's members, one column per attribute and one slot per advert:
 * numbers in typed arrays (NaN for unknown), strings in plain arrays of shared strings.
 *
 * Why columns: as one object per member, each with its own boxed numbers, and two maps of bins
 * per bucket, the index was about 870,000 heap objects at 100,000 adverts (a quarter of listings'
 * heap), and V8 walks every one of them on each full collection while ingestion waits. Columns
 * are a dozen arrays whatever the number of adverts.
 */
import { ShardedMap } from '@immo/contracts';

/** Numbers a member is matched on; NaN when the advert does not say. */
export const NUMBER_COLUMNS = ['surface', 'landSurface', 'room', 'floor', 'price', 'lat', 'lon'] as const;
export type NumberColumn = (typeof NUMBER_COLUMNS)[number];

/** What a member holds besides its numbers. */
export interface MemberStrings {
  advertId: string;
  propertyId: string;
  site: string;
  publisherName: string;
  energyCategory: string | null;
  expiredAt: string | null;
  bucketKey: string;
}

const INITIAL_CAPACITY = 1024;

export class MemberColumns {
  readonly numbers: Record<NumberColumn, Float64Array>;
  readonly advertId: string[] = [];
  readonly propertyId: string[] = [];
  readonly site: string[] = [];
  readonly publisherName: string[] = [];
  readonly energyCategory: (string | null)[] = [];
  readonly expiredAt: (string | null)[] = [];
  readonly bucketKey: string[] = [];
  private expiredFlags = new Uint8Array(INITIAL_CAPACITY);
  /** Sharded: one entry per advert (see `ShardedMap`). */
  private readonly slots = new ShardedMap<string, number>();
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;

  constructor() {
    this.numbers = Object.fromEntries(NUMBER_COLUMNS.map((name) => [name, new Float64Array(INITIAL_CAPACITY).fill(Number.NaN)])) as Record<NumberColumn, Float64Array>;
  }

  get size(): number {
    return this.slots.size;
  }

  slotOf(advertId: string): number | undefined {
    return this.slots.get(advertId);
  }

  isExpired(slot: number): boolean {
    return this.expiredFlags[slot] === 1;
  }

  /** A free or new slot for an advert that has none (see `slotOf`). */
  allocate(advertId: string): number {
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    if (slot >= this.expiredFlags.length) this.grow();
    this.slots.set(advertId, slot);
    return slot;
  }

  write(slot: number, numbers: Record<NumberColumn, number>, expired: boolean, strings: MemberStrings): void {
    for (const name of NUMBER_COLUMNS) this.numbers[name][slot] = numbers[name];
    this.expiredFlags[slot] = expired ? 1 : 0;
    this.advertId[slot] = strings.advertId;
    this.propertyId[slot] = strings.propertyId;
    this.site[slot] = strings.site;
    this.publisherName[slot] = strings.publisherName;
    this.energyCategory[slot] = strings.energyCategory;
    this.expiredAt[slot] = strings.expiredAt;
    this.bucketKey[slot] = strings.bucketKey;
  }

  release(advertId: string): void {
    const slot = this.slots.get(advertId);
    if (slot === undefined) return;
    this.slots.delete(advertId);
    for (const name of NUMBER_COLUMNS) this.numbers[name][slot] = Number.NaN;
    this.expiredFlags[slot] = 0;
    // Drops the strings, so that a free slot keeps nothing alive.
    this.advertId[slot] = '';
    this.propertyId[slot] = '';
    this.site[slot] = '';
    this.publisherName[slot] = '';
    this.energyCategory[slot] = null;
    this.expiredAt[slot] = null;
    this.bucketKey[slot] = '';
    this.freeSlots.push(slot);
  }

  clear(): void {
    this.slots.clear();
    this.freeSlots.length = 0;
    this.nextSlot = 0;
    for (const name of NUMBER_COLUMNS) this.numbers[name].fill(Number.NaN);
    this.expiredFlags.fill(0);
    for (const column of [this.advertId, this.propertyId, this.site, this.publisherName, this.energyCategory, this.expiredAt, this.bucketKey]) column.length = 0;
  }

  private grow(): void {
    const capacity = this.expiredFlags.length * 2;
    for (const name of NUMBER_COLUMNS) {
      const grown = new Float64Array(capacity).fill(Number.NaN);
      grown.set(this.numbers[name]);
      this.numbers[name] = grown;
    }
    const flags = new Uint8Array(capacity);
    flags.set(this.expiredFlags);
    this.expiredFlags = flags;
  }
}

/**
 * Slots kept in ascending order of one number column, so that the members whose value lies in
 * a range are found by binary search. Arrays of small integers: one object each, whatever their
 * length.
 */
export class SortedSlots {
  /** The column the slots are ordered by (read again on each use: columns are replaced as they grow). */
  constructor(readonly values: () => Float64Array) {}

  insert(list: number[], slot: number, value: number): void {
    list.splice(this.lowerBound(list, value), 0, slot);
  }

  /** Removes `slot`, filed under `value`: its column value, which must not have changed since it was inserted. */
  remove(list: number[], slot: number, value: number): void {
    const values = this.values();
    for (let i = this.lowerBound(list, value); i < list.length && values[list[i] as number] === value; i++) {
      if (list[i] === slot) {
        list.splice(i, 1);
        return;
      }
    }
  }

  /** Index of the first slot whose value is at least `value`. */
  lowerBound(list: readonly number[], value: number): number {
    const values = this.values();
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((values[list[mid] as number] as number) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
