import type { City } from '@immo/contracts';
import type { AppendResult, EventData, EventStore } from '@immo/event-store';
import { busyFor } from '@immo/testing';
import type { GeoLookup } from '../src/geo/geo-directory.client';

/** What encoding and publishing one commit costs the caller, synchronously. */
export const APPEND_COST_MS = 1;

/** Geo stand-in: every INSEE code is a city, no postal code resolves. */
export const everyInseeCode: GeoLookup = {
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
export function countingEventStore(appended: string[], onAppend: () => void = () => undefined): EventStore {
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
