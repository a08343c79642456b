import type { City } from '@immo/contracts';
import type { AppendResult, EventData, EventStore } from '@immo/event-store';
import { busyFor, LoopTurns, mostItemsInOneTurn } from '@immo/testing';
import { PropertyMatcher } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import type { GeoLookup } from '../geo/geo-directory.client';
import { IngestionService } from './ingestion.service';
import type { ProjectionLagLimit } from './projection-lag-limit';

/** What encoding and publishing one commit costs the caller, synchronously. */
const APPEND_COST_MS = 1;
const SNAPSHOTS = 64;

const geo: GeoLookup = {
  async cityByInsee(insee) {
    return { insee } as City;
  },
  async inseeOf() {
    return null;
  },
  async stationsNear() {
    return [];
  },
};

/** An event store that only counts: every stream is new, every append costs `APPEND_COST_MS`. */
function countingEventStore(appended: string[], onAppend: () => void = () => undefined): EventStore {
  let position = 0;
  return {
    async append(stream: string, events: EventData[]): Promise<AppendResult> {
      busyFor(APPEND_COST_MS);
      appended.push(stream);
      onAppend();
      position += 1000;
      return { nextExpectedRevision: events.length - 1, position };
    },
    async readStream() {
      return [];
    },
    subscribeToAll() {
      throw new Error('not used');
    },
    async headPosition() {
      return null;
    },
    async isReady() {
      return true;
    },
    async close() {
      // Nothing to release.
    },
  };
}

describe('IngestionService on the event loop', () => {
  it('gives the loop its turns when the lag limit releases held appends together', async () => {
    const appended: string[] = [];
    const appendedInTurn: number[] = [];
    // Every append waits for one projection commit, which lands once all of them wait: they are
    // released in the same turn, as when a real commit covers the positions they wait for.
    let release: () => void = () => undefined;
    const commitLanded = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const lagLimit = {
      admit: () => {
        if (++waiting === SNAPSHOTS) setTimeout(release, 5);
        return commitLanded;
      },
      appended: () => undefined,
    } as unknown as ProjectionLagLimit;
    const turns = new LoopTurns();
    const ingestion = new IngestionService(countingEventStore(appended, () => appendedInTurn.push(turns.current)), geo, new PropertyMatcher(), {
      now: () => new Date('2026-06-01T00:00:00Z'),
      lagLimit,
    });
    // One commune each: grouping serializes the adverts of a commune, these run side by side.
    const snapshots = Array.from({ length: SNAPSHOTS }, (_, i) =>
      aSnapshot({
        reference: `SLICE-${i}`,
        url: `https://synthetic-portal-a.example/annonces/SLICE-${i}`,
        commune: { insee: String(69001 + i) },
      }),
    );

    const { accepted } = await ingestion.ingest(snapshots);
    turns.stop();

    expect(accepted).toBe(SNAPSHOTS);
    expect(new Set(appended).size).toBe(SNAPSHOTS);
    // 64 ms of appending released at once: in one go all 64 share a turn; sliced, about ten (10 ms) do.
    expect(mostItemsInOneTurn(appendedInTurn)).toBeLessThanOrEqual(SNAPSHOTS / 4);
  });
});
