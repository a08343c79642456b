/**
 * Upcasting: turns a stored advert event, whatever version it was written in, into the current
 * `AdvertDomainEvent` union before it reaches `evolve` or a projection.
 *
 * Every type is at v1 today, so this is the identity on known types. When a shape has to change:
 * add the new interface with a `.v2` name, make `decide` emit it, and add a case here that maps the
 * `.v1` data to the `.v2` shape (filling defaults for new fields). Stored events are never
 * rewritten; readers only ever see the newest shape, so `evolve` handles a single version.
 *
 * Unknown types throw instead of being skipped: silently dropping an event from an advert stream
 * would leave a wrong state with no trace, and an unknown type here means a reader older than the
 * writer, which must not fold the stream.
 */
import type { RecordedEvent } from '@immo/event-store';
import { ADVERT_EVENT_TYPES, type AdvertDomainEvent, type AdvertEventType } from './advert.events';

const KNOWN_TYPES: ReadonlySet<string> = new Set<string>(Object.values(ADVERT_EVENT_TYPES));

export class UnknownAdvertEventError extends Error {
  override readonly name = 'UnknownAdvertEventError';
  constructor(readonly eventType: string) {
    super(`Unknown advert event type "${eventType}"`);
  }
}

export function isAdvertEventType(type: string): type is AdvertEventType {
  return KNOWN_TYPES.has(type);
}

export function upcast(type: string, data: unknown): AdvertDomainEvent {
  // The store only holds what `decide` wrote (typed at write time), so the data is trusted here;
  // version changes get their mapping above this line.
  if (isAdvertEventType(type)) return { type, data } as AdvertDomainEvent;
  throw new UnknownAdvertEventError(type);
}

/** Convenience for readers of `readStream` / `subscribeToAll`. */
export function fromRecordedEvent(event: Pick<RecordedEvent, 'type' | 'data'>): AdvertDomainEvent {
  return upcast(event.type, event.data);
}
