import { randomUUID } from 'node:crypto';

/**
 * Nest hands the serializer only the reply packet and the request's `id`, so the id is how the
 * deserializer tells the serializer that a request came without Nest's envelope and must be
 * answered in plain JSON. Nest's clients and `NatsRpcClient` use bare UUIDs, which never carry
 * these prefixes.
 */
const PLAIN = 'plain-json:';
const UNREADABLE = 'plain-json-unreadable:';

export type PlainRequestKind = 'plain' | 'unreadable';

export function plainRequestId(kind: PlainRequestKind): string {
  return (kind === 'plain' ? PLAIN : UNREADABLE) + randomUUID();
}

/** `undefined` for a request that came in Nest's envelope. */
export function plainRequestKind(id: unknown): PlainRequestKind | undefined {
  if (typeof id !== 'string') return undefined;
  if (id.startsWith(PLAIN)) return 'plain';
  if (id.startsWith(UNREADABLE)) return 'unreadable';
  return undefined;
}
