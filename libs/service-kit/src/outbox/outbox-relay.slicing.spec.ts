import { EmbeddedDocumentStore } from '@immo/document-store';
import { busyFor, LoopTurns, mostItemsInOneTurn } from '@immo/testing';
import { OutboxRelay, outboxId, type OutboxRecord } from './outbox-relay';

const OUTBOX = { name: 'slicing_outbox', indexes: [] };
const DEAD_LETTERS = { name: 'slicing_outbox_dead_letters', indexes: [] };
const RECORDS = 80;
const PUBLISH_COST_MS = 1;

describe('OutboxRelay on the event loop', () => {
  it('gives the event loop its turns while publishing a page, and still publishes in outbox order', async () => {
    const store = new EmbeddedDocumentStore();
    const published: string[] = [];
    const publishedInTurn: number[] = [];
    const turns = new LoopTurns();
    const relay = new OutboxRelay(
      store,
      async (_subject, eventId) => {
        busyFor(PUBLISH_COST_MS);
        published.push(eventId);
        publishedInTurn.push(turns.current);
      },
      { outbox: OUTBOX, deadLetters: DEAD_LETTERS },
    );
    const records: OutboxRecord[] = Array.from({ length: RECORDS }, (_, i) => ({ _id: outboxId(i + 1, 0), revision: i + 1, subject: 'test.subject', eventId: `event-${i + 1}`, payload: '{}' }));
    await store.collection<OutboxRecord>(OUTBOX).bulkUpsert(records);

    relay.start();
    expect(await relay.settled(10_000)).toBe(true);
    turns.stop();
    await relay.stop();
    await store.close();

    expect(published).toEqual(records.map((record) => record.eventId));
    // 80 ms of publishing in all: in one go all 80 share a turn; sliced, about ten (10 ms) do.
    expect(mostItemsInOneTurn(publishedInTurn)).toBeLessThanOrEqual(RECORDS / 4);
  });

  it('reads a page of records a few at a time between turns, not the whole page in one', async () => {
    const store = new EmbeddedDocumentStore();
    const outbox = store.collection<OutboxRecord>(OUTBOX);
    await outbox.bulkUpsert(Array.from({ length: RECORDS }, (_, i) => ({ _id: outboxId(i + 1, 0), revision: i + 1, subject: 'test.subject', eventId: `event-${i + 1}`, payload: '{}' })));
    // Each record read costs a millisecond, as a record of several KB read from disk does.
    const turns = new LoopTurns();
    const readInTurn: number[] = [];
    const find = outbox.find.bind(outbox);
    outbox.find = (async (filter, options) => {
      const found = await find(filter, options);
      if (options?.projection === undefined) {
        for (let i = 0; i < found.length; i++) {
          busyFor(PUBLISH_COST_MS);
          readInTurn.push(turns.current);
        }
      }
      return found;
    }) as typeof outbox.find;
    const relay = new OutboxRelay(store, async () => undefined, { outbox: OUTBOX, deadLetters: DEAD_LETTERS });

    relay.start();
    expect(await relay.settled(10_000)).toBe(true);
    turns.stop();
    await relay.stop();
    await store.close();

    expect(readInTurn).toHaveLength(RECORDS);
    // Read with the page, all 80 share a turn; by chunks, at most one chunk (25) does.
    expect(mostItemsInOneTurn(readInTurn)).toBeLessThanOrEqual(25);
  });
});
