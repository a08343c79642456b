/**
 * Storage of the grouping index's members, one column per attribute and one slot per advert:
 * numbers in typed arrays (NaN for unknown), strings in plain arrays of shared strings.
 *
 * Why columns: as one object per member, each with its own boxed numbers, and two maps of bins
 * per bucket, the index was about 870,000 heap objects at 100,000 adverts (a quarter of listings'
 * heap), and V8 walks every one of them on each full collection while ingestion waits. Columns
 * are a dozen arrays whatever the number of adverts.
 */
import { ShardedMap } from '@immo/runtime';

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

/**
 * Slots per page. A column grows a page at a time and never copies what it holds: grown by
 * doubling, seven string arrays and seven number arrays of 260,000 slots took 30 to 60 ms to
 * copy, in one call of `track` during ingestion (V8 copies a large array's elements one by one
 * with its write barrier).
 */
const PAGE_BITS = 12;
const PAGE_SIZE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SIZE - 1;

/** A column of numbers in pages of `PAGE_SIZE` slots; NaN where nothing was written. */
export class PagedNumbers {
  private readonly pages: Float64Array[] = [];

  /** The value at `slot`; the slot must be below the capacity (see `reserve`). */
  get(slot: number): number {
    return (this.pages[slot >>> PAGE_BITS] as Float64Array)[slot & PAGE_MASK] as number;
  }

  set(slot: number, value: number): void {
    (this.pages[slot >>> PAGE_BITS] as Float64Array)[slot & PAGE_MASK] = value;
  }

  /** Makes room for slots up to `slot`, adding pages (existing ones stay where they are). */
  reserve(slot: number): void {
    while (slot >>> PAGE_BITS >= this.pages.length) this.pages.push(new Float64Array(PAGE_SIZE).fill(Number.NaN));
  }

  clear(): void {
    this.pages.length = 0;
  }
}

/** A column of values (shared strings, or null) in pages of `PAGE_SIZE` slots, `empty` where nothing was written. */
export class PagedValues<T> {
  private readonly pages: T[][] = [];

  constructor(private readonly empty: T) {}

  /** The value at `slot`; the slot must be below the capacity (see `reserve`). */
  get(slot: number): T {
    return (this.pages[slot >>> PAGE_BITS] as T[])[slot & PAGE_MASK] as T;
  }

  set(slot: number, value: T): void {
    (this.pages[slot >>> PAGE_BITS] as T[])[slot & PAGE_MASK] = value;
  }

  reserve(slot: number): void {
    while (slot >>> PAGE_BITS >= this.pages.length) this.pages.push(new Array<T>(PAGE_SIZE).fill(this.empty));
  }

  clear(): void {
    this.pages.length = 0;
  }
}

export class MemberColumns {
  readonly numbers = Object.fromEntries(NUMBER_COLUMNS.map((name) => [name, new PagedNumbers()])) as Record<NumberColumn, PagedNumbers>;
  readonly advertId = new PagedValues<string>('');
  readonly propertyId = new PagedValues<string>('');
  readonly site = new PagedValues<string>('');
  readonly publisherName = new PagedValues<string>('');
  readonly energyCategory = new PagedValues<string | null>(null);
  readonly expiredAt = new PagedValues<string | null>(null);
  readonly bucketKey = new PagedValues<string>('');
  private readonly expiredFlags = new PagedValues<boolean>(false);
  /** Sharded: one entry per advert (see `ShardedMap`). */
  private readonly slots = new ShardedMap<string, number>();
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  /** Slots the columns have room for (a whole number of pages). */
  private capacity = 0;

  get size(): number {
    return this.slots.size;
  }

  slotOf(advertId: string): number | undefined {
    return this.slots.get(advertId);
  }

  isExpired(slot: number): boolean {
    return this.expiredFlags.get(slot);
  }

  /** A free or new slot for an advert that has none (see `slotOf`). */
  allocate(advertId: string): number {
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    if (slot >= this.capacity) {
      for (const column of this.allColumns()) column.reserve(slot);
      this.capacity = (Math.floor(slot / PAGE_SIZE) + 1) * PAGE_SIZE;
    }
    this.slots.set(advertId, slot);
    return slot;
  }

  write(slot: number, numbers: Record<NumberColumn, number>, expired: boolean, strings: MemberStrings): void {
    for (const name of NUMBER_COLUMNS) this.numbers[name].set(slot, numbers[name]);
    this.expiredFlags.set(slot, expired);
    this.advertId.set(slot, strings.advertId);
    this.propertyId.set(slot, strings.propertyId);
    this.site.set(slot, strings.site);
    this.publisherName.set(slot, strings.publisherName);
    this.energyCategory.set(slot, strings.energyCategory);
    this.expiredAt.set(slot, strings.expiredAt);
    this.bucketKey.set(slot, strings.bucketKey);
  }

  release(advertId: string): void {
    const slot = this.slots.get(advertId);
    if (slot === undefined) return;
    this.slots.delete(advertId);
    for (const name of NUMBER_COLUMNS) this.numbers[name].set(slot, Number.NaN);
    this.expiredFlags.set(slot, false);
    // Drops the strings, so that a free slot keeps nothing alive.
    this.advertId.set(slot, '');
    this.propertyId.set(slot, '');
    this.site.set(slot, '');
    this.publisherName.set(slot, '');
    this.energyCategory.set(slot, null);
    this.expiredAt.set(slot, null);
    this.bucketKey.set(slot, '');
    this.freeSlots.push(slot);
  }

  clear(): void {
    this.slots.clear();
    this.freeSlots.length = 0;
    this.nextSlot = 0;
    this.capacity = 0;
    for (const column of this.allColumns()) column.clear();
  }

  private allColumns(): (PagedNumbers | PagedValues<unknown>)[] {
    return [
      ...Object.values(this.numbers),
      this.expiredFlags,
      this.advertId,
      this.propertyId,
      this.site,
      this.publisherName,
      this.energyCategory,
      this.expiredAt,
      this.bucketKey,
    ];
  }
}

/**
 * Slots kept in ascending order of one number column, so that the members whose value lies in
 * a range are found by binary search. Arrays of small integers: one object each, whatever their
 * length.
 */
export class SortedSlots {
  /** The column the slots are ordered by. */
  constructor(readonly values: PagedNumbers) {}

  insert(list: number[], slot: number, value: number): void {
    list.splice(this.lowerBound(list, value), 0, slot);
  }

  /** Removes `slot`, filed under `value`: its column value, which must not have changed since it was inserted. */
  remove(list: number[], slot: number, value: number): void {
    const values = this.values;
    for (let i = this.lowerBound(list, value); i < list.length && values.get(list[i] as number) === value; i++) {
      if (list[i] === slot) {
        list.splice(i, 1);
        return;
      }
    }
  }

  /** Index of the first slot whose value is at least `value`. */
  lowerBound(list: readonly number[], value: number): number {
    const values = this.values;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values.get(list[mid] as number) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
