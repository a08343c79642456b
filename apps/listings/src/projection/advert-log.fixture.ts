import { validateSnapshot, type AdvertSnapshot } from '@immo/contracts';
import type { RecordedEvent } from '@immo/event-store';
import { advertIdOf, advertStreamName, decide, decideAssignment, evolve, PropertyMatcher, toEventData, type AdvertState } from '../domain';

/**
 * The advert events a series of snapshots appends, as the event log records them (stream
 * revisions, global positions), decided the way ingestion decides them: for specs of the
 * projections that need a realistic log without an event store.
 */
export function simulatedAdvertLog(snapshots: readonly AdvertSnapshot[], now: Date): RecordedEvent[] {
  const matcher = new PropertyMatcher();
  const states = new Map<string, { state: AdvertState | null; revision: number }>();
  const log: RecordedEvent[] = [];
  for (const snapshot of snapshots) {
    const validation = validateSnapshot(snapshot, now);
    if (!validation.ok) continue;
    const advertId = advertIdOf(validation.snapshot);
    const current = states.get(advertId) ?? { state: null, revision: -1 };
    const events = decide(validation.snapshot, current.state);
    if (events.length === 0) continue;
    let next = events.reduce<AdvertState | null>((state, event) => evolve(state, event), current.state) as AdvertState;
    if (next.propertyId === null) {
      const assignment = decideAssignment(next, matcher);
      events.push(...assignment);
      next = assignment.reduce<AdvertState>((state, event) => evolve(state, event), next);
    }
    matcher.track(next);
    toEventData(advertId, current.revision, events).forEach((data, i) => {
      log.push({ ...data, metadata: data.metadata ?? {}, streamName: advertStreamName(advertId), revision: current.revision + 1 + i, position: log.length + 1, createdAt: now });
    });
    states.set(advertId, { state: next, revision: current.revision + events.length });
  }
  return log;
}
