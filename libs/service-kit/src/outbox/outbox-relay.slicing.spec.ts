import { EmbeddedDocumentStore } from '@immo/document-store';
import { OutboxRelay, outboxId, type OutboxRecord } from './outbox-relay';

const OUTBOX = { name: 'slicing_outbox', indexes: [] };
const DEAD_LETTERS = { name: 'slicing_outbox_dead_letters', indexes: [] };
const RECORDS = 80;
const PUBLISH_COST_MS = 1;

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // What encoding and writing a message of several KB costs the caller.
  }
}

/** The longest the event loop went without a turn while `work` ran, measured by a chain of immediates. */
async function longestTurnGapWhile(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
  }
  return longest;
}

describe('OutboxRelay on the event loop', () => {
  it('gives the event loop its turns while publishing a page, and still publishes in outbox order', async () => {
    const store = new EmbeddedDocumentStore();
    const published: string[] = [];
    const relay = new OutboxRelay(
      store,
      async (_subject, eventId) => {
        busyFor(PUBLISH_COST_MS);
        published.push(eventId);
      },
      { outbox: OUTBOX, deadLetters: DEAD_LETTERS },
    );
    const records: OutboxRecord[] = Array.from({ length: RECORDS }, (_, i) => ({ _id: outboxId(i + 1, 0), revision: i + 1, subject: 'test.subject', eventId: `event-${i + 1}`, payload: '{}' }));
    await store.collection<OutboxRecord>(OUTBOX).bulkUpsert(records);

    const gap = await longestTurnGapWhile(async () => {
      relay.start();
      expect(await relay.settled(10_000)).toBe(true);
    });
    await relay.stop();
    await store.close();

    expect(published).toEqual(records.map((record) => record.eventId));
    // 80 ms of publishing in all: in one go the loop waits all of it; sliced, about 10 ms at a time.
    expect(gap).toBeLessThan(40);
  });
});
