import type { Caller } from '@immo/contracts';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { ProblemException } from '../http/problem';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Who is calling, as the key check identified it. */
export function callerOf(request: AuthenticatedRequest): Caller {
  // The key check ran (the guard makes sure of it): every request reaching a handler that needs a
  // key carries its identity.
  return { accountId: (request.apiKey as NonNullable<AuthenticatedRequest['apiKey']>).accountId };
}

/** A path id that must be a UUID (`id` for a search, `deliveryId`...), lower-cased. */
export function uuidParameter(value: string, name = 'id'): string {
  if (!UUID.test(value)) throw ProblemException.invalidParameter(name, 'must be a UUID');
  return value.toLowerCase();
}
