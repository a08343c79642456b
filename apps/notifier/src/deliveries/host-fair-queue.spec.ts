import { HostFairQueue } from './host-fair-queue';

type Taken = { host: string; id: string };

/** Takes until the queue lets nothing more start. */
function takeAll(queue: HostFairQueue): Taken[] {
  const taken: Taken[] = [];
  for (let next = queue.take(); next !== null; next = queue.take()) taken.push(next);
  return taken;
}

const ids = (taken: Taken[]) => taken.map((t) => t.id);

function pushAll(queue: HostFairQueue, entries: Record<string, string[]>): void {
  for (const [host, hostIds] of Object.entries(entries)) for (const id of hostIds) queue.push(host, id);
}

describe('HostFairQueue', () => {
  describe('given an empty queue', () => {
    it('when taken from, then nothing may start', () => {
      const queue = new HostFairQueue(10, 2);

      expect(queue.take()).toBeNull();
      expect(queue.size).toBe(0);
      expect(queue.active).toBe(0);
    });
  });

  describe('deduplication', () => {
    it('given a queued id, when it is pushed again, then it is refused and queued once', () => {
      const queue = new HostFairQueue(10, 10);

      expect(queue.push('a.example', 'd1')).toBe(true);
      expect(queue.push('a.example', 'd1')).toBe(false);
      // Even under another host: the id is the delivery, whatever endpoint it names.
      expect(queue.push('b.example', 'd1')).toBe(false);

      expect(queue.size).toBe(1);
      expect(queue.has('d1')).toBe(true);
      expect(takeAll(queue)).toEqual([{ host: 'a.example', id: 'd1' }]);
    });

    it('given an id in flight, when it is pushed again (a scan finding it still pending), then it is refused until done', () => {
      const queue = new HostFairQueue(10, 10);
      queue.push('a.example', 'd1');
      expect(queue.take()).toEqual({ host: 'a.example', id: 'd1' });

      expect(queue.push('a.example', 'd1')).toBe(false);
      expect(queue.take()).toBeNull();

      queue.done('a.example', 'd1');
      expect(queue.has('d1')).toBe(false);
      expect(queue.push('a.example', 'd1')).toBe(true);
      expect(queue.take()).toEqual({ host: 'a.example', id: 'd1' });
    });
  });

  describe('per-host cap', () => {
    it('given more deliveries to one host than its cap, when taken, then only the cap starts, oldest first', () => {
      const queue = new HostFairQueue(100, 2);
      pushAll(queue, { 'a.example': ['a1', 'a2', 'a3', 'a4'] });

      expect(ids(takeAll(queue))).toEqual(['a1', 'a2']);
      expect(queue.active).toBe(2);
      expect(queue.size).toBe(4);
    });

    it('given a host at its cap, when one of its deliveries is done, then exactly one more of its deliveries starts', () => {
      const queue = new HostFairQueue(100, 2);
      pushAll(queue, { 'a.example': ['a1', 'a2', 'a3', 'a4'] });
      takeAll(queue);

      queue.done('a.example', 'a1');

      expect(ids(takeAll(queue))).toEqual(['a3']);
      expect(queue.active).toBe(2);
      expect(queue.size).toBe(3);
    });

    it('given a host at its cap (a receiver that hangs), when other hosts have deliveries, then theirs still start', () => {
      const queue = new HostFairQueue(100, 2);
      pushAll(queue, { 'slow.example': ['s1', 's2', 's3', 's4', 's5'], 'fast.example': ['f1', 'f2'], 'other.example': ['o1'] });

      const taken = takeAll(queue);

      expect(taken.filter((t) => t.host === 'slow.example')).toHaveLength(2);
      expect(ids(taken.filter((t) => t.host !== 'slow.example')).sort()).toEqual(['f1', 'f2', 'o1']);
      expect(queue.active).toBe(5);
    });
  });

  describe('global cap', () => {
    it('given deliveries to many hosts, when taken, then no more than the global cap are in flight', () => {
      const queue = new HostFairQueue(3, 10);
      pushAll(queue, { 'a.example': ['a1', 'a2'], 'b.example': ['b1', 'b2'], 'c.example': ['c1'], 'd.example': ['d1'] });

      expect(takeAll(queue)).toHaveLength(3);
      expect(queue.active).toBe(3);
      expect(queue.take()).toBeNull();
    });

    it('given the global cap reached, when any delivery is done, then one more starts', () => {
      const queue = new HostFairQueue(3, 10);
      pushAll(queue, { 'a.example': ['a1', 'a2'], 'b.example': ['b1', 'b2'], 'c.example': ['c1'], 'd.example': ['d1'] });
      const first = takeAll(queue);

      const finished = first[0] as Taken;
      queue.done(finished.host, finished.id);

      expect(takeAll(queue)).toHaveLength(1);
      expect(queue.active).toBe(3);
    });

    it('given everything done, when counted, then nothing is active nor queued and every host may start again', () => {
      const queue = new HostFairQueue(2, 1);
      pushAll(queue, { 'a.example': ['a1', 'a2'], 'b.example': ['b1'] });
      for (let round = 0; round < 3; round++) {
        for (const { host, id } of takeAll(queue)) queue.done(host, id);
      }

      expect(queue.active).toBe(0);
      expect(queue.size).toBe(0);
      pushAll(queue, { 'a.example': ['a3'], 'b.example': ['b2'] });
      expect(ids(takeAll(queue))).toEqual(['a3', 'b2']);
    });
  });

  describe('round-robin fairness', () => {
    it('given a backlog on one host and a few deliveries on others, when taken, then hosts take turns', () => {
      const queue = new HostFairQueue(100, 100);
      pushAll(queue, { 'big.example': ['g1', 'g2', 'g3', 'g4', 'g5'], 'b.example': ['b1', 'b2'], 'c.example': ['c1'] });

      expect(ids(takeAll(queue))).toEqual(['g1', 'b1', 'c1', 'g2', 'b2', 'g3', 'g4', 'g5']);
    });

    it('given one slot at a time, when each delivery is done before the next is taken, then hosts still take turns', () => {
      const queue = new HostFairQueue(1, 1);
      pushAll(queue, { 'a.example': ['a1', 'a2', 'a3'], 'b.example': ['b1', 'b2'], 'c.example': ['c1'] });

      const order: string[] = [];
      for (let next = queue.take(); next !== null; next = queue.take()) {
        order.push(next.id);
        queue.done(next.host, next.id);
      }

      expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    });

    it('given a host that joins while others are being served, when taken, then it gets its turn after the hosts already waiting', () => {
      const queue = new HostFairQueue(1, 1);
      pushAll(queue, { 'a.example': ['a1', 'a2', 'a3'], 'b.example': ['b1', 'b2'] });
      const order: string[] = [];
      const step = () => {
        const next = queue.take() as Taken;
        order.push(next.id);
        queue.done(next.host, next.id);
      };

      step();
      queue.push('c.example', 'c1');
      while (queue.size > 0) step();

      expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    });

    it('given a host skipped at its cap, when a host after it empties its list, then the skipped host whose turn it is goes next', () => {
      // Ring [a, b, c], one slot per host. After a1, b1, c1 and b2 start, the turn is c's; a and c
      // are both busy when b's last delivery starts, so the turn stays with c.
      const queue = new HostFairQueue(100, 1);
      pushAll(queue, { 'a.example': ['a1', 'a2'], 'b.example': ['b1', 'b2', 'b3'], 'c.example': ['c1', 'c2'] });
      expect(ids(takeAll(queue))).toEqual(['a1', 'b1', 'c1']);
      queue.done('b.example', 'b1');
      expect(ids(takeAll(queue))).toEqual(['b2']);
      queue.done('b.example', 'b2');
      expect(ids(takeAll(queue))).toEqual(['b3']);

      queue.done('a.example', 'a1');
      queue.done('c.example', 'c1');
      const next = queue.take();

      expect(next).toEqual({ host: 'c.example', id: 'c2' });
    });
  });
});
