import { Logger } from '@nestjs/common';
import { PropertyMatcher } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import { countingEventStore, everyInseeCode } from '../../test/counting-event-store';
import { IN_FLIGHT_GRACE_MS, IngestionService } from './ingestion.service';
import { ProjectionLagLimit } from './projection-lag-limit';

const MAX_AHEAD = 4;
const BATCH_TIME_MS = 300;

/** Ten adverts in each of two communes: the adverts of a commune take their turns one by one. */
const snapshots = Array.from({ length: 20 }, (_, i) =>
  aSnapshot({
    reference: `LATE-${i}`,
    url: `https://synthetic-portal-a.example/annonces/LATE-${i}`,
    surface: 30 + i,
    commune: { insee: i % 2 === 0 ? '69123' : '75056' },
  }),
);

describe('IngestionService within its batch time', () => {
  let warnings: string[];

  beforeEach(() => {
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  it('answers by its deadline when the projection stands still: what was appended is accepted, the rest is "retry later", and nothing of it is appended afterwards', async () => {
    const appended: string[] = [];
    // A projection that never commits: after MAX_AHEAD appends, every append waits for it.
    const lagLimit = new ProjectionLagLimit(MAX_AHEAD, () => new Promise<void>(() => undefined), 60_000);
    const ingestion = new IngestionService(countingEventStore(appended), everyInseeCode, new PropertyMatcher(), {
      now: () => new Date('2026-06-01T00:00:00Z'),
      lagLimit,
    });

    const started = Date.now();
    const reply = await ingestion.ingest(snapshots, { deadline: started + BATCH_TIME_MS });
    const answeredAfter = Date.now() - started;

    // Answered at its deadline, not after the lag limit's own minute.
    expect(answeredAfter).toBeGreaterThanOrEqual(BATCH_TIME_MS - 5);
    expect(answeredAfter).toBeLessThan(BATCH_TIME_MS + 1000);
    expect(reply.accepted).toBe(MAX_AHEAD);
    expect(reply.rejected).toBe(snapshots.length - MAX_AHEAD);
    expect(reply.results).toHaveLength(snapshots.length);
    for (const result of reply.results.filter((r) => r.status === 'rejected')) {
      expect(result.status === 'rejected' && result.violations[0]?.message).toMatch(/retry later/);
    }
    // Every accepted item is one of the appended streams, and no other stream was appended.
    expect(appended).toHaveLength(MAX_AHEAD);
    // Once one batch's deadline passed, none of its waiting items appends later.
    await new Promise((resolve) => setTimeout(resolve, 2 * BATCH_TIME_MS));
    expect(appended).toHaveLength(MAX_AHEAD);
    // Said once for the batch, not once per item.
    expect(warnings.filter((w) => w.includes('retry later'))).toEqual([`${snapshots.length - MAX_AHEAD} of ${snapshots.length} snapshots answered "retry later": the projection is behind`]);
  });

  it('answers at most a grace after its deadline when the event store does not acknowledge an append: that item and those behind it are "retry later"', async () => {
    const appended: string[] = [];
    const store = countingEventStore(appended);
    const append = store.append.bind(store);
    // The third append is never acknowledged (a stalled event store); the others are.
    store.append = (stream, events, options) => (appended.length === 2 ? new Promise(() => undefined) : append(stream, events, options));
    const ingestion = new IngestionService(store, everyInseeCode, new PropertyMatcher(), { now: () => new Date('2026-06-01T00:00:00Z') });
    // One commune: the items take their turns behind the stalled one.
    const oneBucket = snapshots.filter((_, i) => i % 2 === 0);

    const started = Date.now();
    const reply = await ingestion.ingest(oneBucket, { deadline: started + BATCH_TIME_MS });
    const answeredAfter = Date.now() - started;

    expect(answeredAfter).toBeGreaterThanOrEqual(BATCH_TIME_MS + IN_FLIGHT_GRACE_MS - 5);
    expect(answeredAfter).toBeLessThan(BATCH_TIME_MS + IN_FLIGHT_GRACE_MS + 1000);
    expect(reply.accepted).toBe(2);
    expect(reply.rejected).toBe(oneBucket.length - 2);
    expect(reply.results.map((r) => r.index)).toEqual(oneBucket.map((_, i) => i));
    for (const result of reply.results.slice(2)) {
      expect(result.status === 'rejected' && result.violations[0]?.message).toMatch(/retry later/);
    }
    expect(warnings).toContainEqual(`${oneBucket.length - 2} of ${oneBucket.length} snapshots still under way ${IN_FLIGHT_GRACE_MS} ms after the batch's deadline: answered "retry later"`);
  });

  it('stores the whole batch when the projection keeps up within the time', async () => {
    const appended: string[] = [];
    const lagLimit = new ProjectionLagLimit(MAX_AHEAD, () => new Promise<void>((resolve) => setTimeout(resolve, 5)), 60_000);
    const ingestion = new IngestionService(countingEventStore(appended), everyInseeCode, new PropertyMatcher(), {
      now: () => new Date('2026-06-01T00:00:00Z'),
      lagLimit,
    });

    const reply = await ingestion.ingest(snapshots, { deadline: Date.now() + 10_000 });

    expect(reply.accepted).toBe(snapshots.length);
    expect(appended).toHaveLength(snapshots.length);
    expect(warnings).toEqual([]);
  });

  it('refuses every item of a batch whose deadline passed before it started, appending nothing', async () => {
    const appended: string[] = [];
    const ingestion = new IngestionService(countingEventStore(appended), everyInseeCode, new PropertyMatcher(), { now: () => new Date('2026-06-01T00:00:00Z') });

    const reply = await ingestion.ingest(snapshots.slice(0, 3), { deadline: Date.now() - 1 });

    expect(reply.accepted).toBe(0);
    expect(reply.results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(appended).toEqual([]);
  });
});
