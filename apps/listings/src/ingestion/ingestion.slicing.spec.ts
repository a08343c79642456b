import { busyFor, LoopTurns, mostItemsInOneTurn } from '@immo/testing';
import { PropertyMatcher } from '../domain';
import { aSnapshot } from '../domain/snapshot.fixture';
import { countingEventStore, everyInseeCode as geo } from '../../test/counting-event-store';
import { IngestionService } from './ingestion.service';
import type { GeoLookup } from '../geo/geo-directory.client';
import type { ProjectionLagLimit } from './projection-lag-limit';

const SNAPSHOTS = 64;

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

  it('starts the geo look-ups of a batch of unknown communes a slice at a time, however uneven their cost', async () => {
    // Each look-up of a commune not met yet costs synchronous work before its request leaves
    // (encoding, publishing): 0.3 ms here, and 8 ms for eight of them in a row, as when the
    // collector runs a marking step inside them.
    const turns = new LoopTurns();
    const lookupTurns: number[] = [];
    const slowTurns: number[] = [];
    let lookups = 0;
    const slowGeo: GeoLookup = {
      ...geo,
      cityByInsee(insee) {
        const slow = lookups >= 20 && lookups < 28;
        lookups++;
        lookupTurns.push(turns.current);
        if (slow) slowTurns.push(turns.current);
        busyFor(slow ? 8 : 0.3);
        return geo.cityByInsee(insee);
      },
    };
    const ingestion = new IngestionService(countingEventStore([]), slowGeo, new PropertyMatcher(), { now: () => new Date('2026-06-01T00:00:00Z') });
    const snapshots = Array.from({ length: SNAPSHOTS }, (_, i) =>
      aSnapshot({ reference: `GEO-${i}`, url: `https://synthetic-portal-a.example/annonces/GEO-${i}`, commune: { insee: String(69001 + i) } }),
    );

    const { accepted } = await ingestion.ingest(snapshots);
    turns.stop();

    expect(accepted).toBe(SNAPSHOTS);
    expect(lookupTurns).toHaveLength(SNAPSHOTS);
    // In one go all 64 share a turn. Asked by time, a turn (10 ms) holds at most two of the 8 ms
    // look-ups (and some 35 of the 0.3 ms ones); asking every 16th item, it held all eight (64 ms).
    expect(mostItemsInOneTurn(lookupTurns)).toBeLessThan(SNAPSHOTS);
    expect(mostItemsInOneTurn(slowTurns)).toBeLessThanOrEqual(2);
  });
});
