import type { EventData, ExpectedRevision } from './event-store.port';

/**
 * Shared argument checks so both adapters reject the same malformed appends before touching the
 * network: a bad request must fail the same way whichever backend is configured.
 */
export function assertValidAppend(stream: string, events: readonly EventData[], expectedRevision: ExpectedRevision, maxEvents: number): void {
  if (typeof stream !== 'string' || stream.length === 0) throw new TypeError('stream name must be a non-empty string');
  if (stream.startsWith('$')) throw new TypeError(`stream name "${stream}" is reserved: names starting with "$" belong to the store`);
  if (events.length === 0) throw new RangeError('append needs at least one event');
  if (events.length > maxEvents) throw new RangeError(`append of ${events.length} events exceeds the limit of ${maxEvents} events per commit`);
  if (typeof expectedRevision === 'number' && (!Number.isSafeInteger(expectedRevision) || expectedRevision < 0)) {
    throw new RangeError(`expected revision must be a non-negative integer, 'no_stream' or 'any'; got ${expectedRevision}`);
  }
  const ids = new Set<string>();
  for (const event of events) {
    if (typeof event.id !== 'string' || event.id.length === 0) throw new TypeError('every event needs a non-empty id');
    if (typeof event.type !== 'string' || event.type.length === 0) throw new TypeError(`event ${event.id} needs a non-empty type`);
    if (event.type.startsWith('$')) throw new TypeError(`event type "${event.type}" is reserved`);
    if (ids.has(event.id)) throw new TypeError(`event id ${event.id} appears twice in one append`);
    ids.add(event.id);
  }
}

/** The numeric form of an expected revision, -1 standing for "no stream" as in EventStoreDB. */
export function expectedAsNumber(expected: Exclude<ExpectedRevision, 'any'>): number {
  return expected === 'no_stream' ? -1 : expected;
}
