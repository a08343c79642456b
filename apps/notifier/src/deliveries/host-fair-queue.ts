/**
 * Deliveries waiting for a free slot, queued per endpoint host and taken round-robin, with a cap
 * on the requests in flight to one host. A receiver that hangs holds at most its own slots: the
 * other hosts' deliveries keep going (the breaker then stops calling it at all).
 */
export class HostFairQueue {
  private readonly waiting = new Map<string, string[]>();
  private readonly queued = new Set<string>();
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private readonly ring: string[] = [];
  private next = 0;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxPerHost: number,
  ) {}

  get size(): number {
    return this.queued.size;
  }

  get active(): number {
    return this.running;
  }

  has(id: string): boolean {
    return this.queued.has(id);
  }

  push(host: string, id: string): boolean {
    if (this.queued.has(id)) return false;
    this.queued.add(id);
    const list = this.waiting.get(host);
    if (list) list.push(id);
    else {
      this.waiting.set(host, [id]);
      this.ring.push(host);
    }
    return true;
  }

  /** The next delivery that may start now, counted in flight until `done(host, id)`; null when none may. */
  take(): { host: string; id: string } | null {
    if (this.running >= this.maxInFlight) return null;
    const hosts = this.ring.length;
    for (let tried = 0; tried < hosts; tried++) {
      const index = (this.next + tried) % hosts;
      const host = this.ring[index] as string;
      if ((this.inFlight.get(host) ?? 0) >= this.maxPerHost) continue;
      const list = this.waiting.get(host) as string[];
      const id = list.shift() as string;
      if (list.length === 0) {
        // The hosts after it move up one place: the next one's turn is at the same index.
        this.waiting.delete(host);
        this.ring.splice(index, 1);
        this.next = this.ring.length === 0 ? 0 : index % this.ring.length;
      } else {
        this.next = (index + 1) % hosts;
      }
      this.inFlight.set(host, (this.inFlight.get(host) ?? 0) + 1);
      this.running++;
      return { host, id };
    }
    return null;
  }

  done(host: string, id: string): void {
    this.queued.delete(id);
    this.running--;
    const count = (this.inFlight.get(host) ?? 1) - 1;
    if (count === 0) this.inFlight.delete(host);
    else this.inFlight.set(host, count);
  }
}
