/**
 * The first `k` items of a stream in a total order, without sorting the stream: a max-heap of the
 * best `k` seen so far, whose root (the worst of them) each new item must beat. O(n log k) for n
 * matches; a results page needs k = page × itemsPerPage, a few dozen at most.
 *
 * Most items of a long stream lose to the root, so an optional numeric `key` rejects them without
 * the full comparison: an item whose key is strictly greater than the root's is worse than it.
 * The key must never contradict the order (key(a) > key(b) implies compare(a, b) > 0); equal keys
 * prove nothing and go to the comparator.
 */

export class TopK {
  private readonly heap: Uint32Array;
  private size = 0;
  private rootKey = Infinity;

  /** `compare` is negative when its first argument comes first. */
  constructor(
    private readonly k: number,
    private readonly compare: (a: number, b: number) => number,
    private readonly key?: (item: number) => number,
  ) {
    this.heap = new Uint32Array(k);
  }

  offer(item: number): void {
    const heap = this.heap;
    if (this.size < this.k) {
      let at = this.size++;
      heap[at] = item;
      while (at > 0) {
        const parent = (at - 1) >>> 1;
        if (this.compare(heap[parent] as number, item) >= 0) break;
        heap[at] = heap[parent] as number;
        heap[parent] = item;
        at = parent;
      }
      if (this.size === this.k) this.rootChanged();
      return;
    }
    if (this.k === 0) return;
    if (this.key !== undefined && this.key(item) > this.rootKey) return;
    if (this.compare(item, heap[0] as number) >= 0) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.k) break;
      const right = left + 1;
      const worse = right < this.k && this.compare(heap[right] as number, heap[left] as number) > 0 ? right : left;
      if (this.compare(heap[worse] as number, item) <= 0) break;
      heap[at] = heap[worse] as number;
      at = worse;
    }
    heap[at] = item;
    this.rootChanged();
  }

  /** The kept items, first first. */
  sorted(): number[] {
    return Array.from(this.heap.subarray(0, this.size)).sort(this.compare);
  }

  private rootChanged(): void {
    if (this.key !== undefined) this.rootKey = this.key(this.heap[0] as number);
  }
}
