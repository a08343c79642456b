/**
 * What an update makes of a stored search: the body it was written with, with the fields the
 * client sent laid over it, so that nothing the client left out is lost. Two ways, as the
 * original service and RFC 7396 have them:
 * - `fields` (`PUT` and `POST /searches/{id}`): each field sent replaces the stored one whole,
 *   `null` resets it to its default;
 * - `json-merge-patch` (`PATCH`): the same, but an object merges into the stored object
 *   recursively (arrays still replace).
 * The result is then validated as a whole body, as a creation is.
 */
import type { SearchUpdateMerge, Violation } from '@immo/contracts';
import { isPlainObject } from '@immo/runtime';
import { apply as applyMergePatch } from 'json-merge-patch';
import type { SearchSpec } from './search-body';

/** The body a stored search stands for: every field it holds, unset ones left out. */
export function storedBodyOf(spec: SearchSpec): Record<string, unknown> {
  const body: Record<string, unknown> = {
    title: spec.title,
    ...spec.criteria,
    notificationEnabled: spec.notificationEnabled,
    endpointRecipient: spec.endpointRecipient,
    eventEndpoint: spec.eventEndpoint,
    subscribedEvents: spec.subscribedEvents,
    notificationRecipient: spec.notificationRecipient,
    hidePropertyContact: spec.hidePropertyContact,
    includedZipcodesInsee: spec.includedZipcodesInsee ?? [],
    initiatedFromDashboard: spec.initiatedFromDashboard ?? false,
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null && value !== undefined));
}

export type MergedBody = { ok: true; body: Record<string, unknown> } | { ok: false; violations: Violation[] };

/** Bodies are JSON: a copy through JSON is a whole one, with objects of this realm (a plain-object check accepts them). */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Names that would reach an object's prototype rather than a field (the merge library stops at them). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The stored body with the update laid over it; an update that is not a JSON object of fields is refused. */
export function mergedBody(stored: Record<string, unknown>, update: unknown, merge: SearchUpdateMerge): MergedBody {
  if (!isPlainObject(update)) return { ok: false, violations: [{ propertyPath: '(root)', message: 'must be a JSON object of Search fields' }] };
  const unsafe = Object.keys(update).filter((name) => PROTOTYPE_KEYS.has(name));
  if (unsafe.length > 0) return { ok: false, violations: unsafe.map((name) => ({ propertyPath: name, message: 'is not a Search field' })) };
  // The merge library writes into the target it is given.
  const base = jsonCopy(stored);
  if (merge === 'json-merge-patch') return { ok: true, body: applyMergePatch(base, jsonCopy(update)) as Record<string, unknown> };
  for (const [name, value] of Object.entries(update)) {
    if (value === null) delete base[name];
    else base[name] = value;
  }
  return { ok: true, body: base };
}
