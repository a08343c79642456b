import Negotiator from 'negotiator';

/**
 * The two formats API Platform serves a resource in, by `Accept`: `jsonld` (Hydra JSON-LD, its
 * default) and `json` (the same data as plain JSON).
 */
export type ResponseFormat = 'jsonld' | 'json';

export const JSON_LD_MEDIA_TYPE = 'application/ld+json';
export const JSON_MEDIA_TYPE = 'application/json';
export const JSON_LD_CONTENT_TYPE = `${JSON_LD_MEDIA_TYPE}; charset=utf-8`;
export const JSON_CONTENT_TYPE = `${JSON_MEDIA_TYPE}; charset=utf-8`;

/** In order of preference: a wildcard (`*\/*`, `application/*`) gets JSON-LD. */
const OFFERED = [JSON_LD_MEDIA_TYPE, JSON_MEDIA_TYPE] as const;

const CHARSET_PARAMETER = /;\s*charset=[^,;]*/gi;

/**
 * The format an `Accept` header asks for, or null when it accepts neither (a 406). The headers
 * almost every client sends are answered without parsing: no header or `*\/*` (curl, fetch,
 * most SDKs) and either type alone. Between the two types at the same weight, the client's first.
 */
export function negotiateResponseFormat(accept: string | undefined): ResponseFormat | null {
  if (accept === undefined || accept === '' || accept === '*/*' || accept === JSON_LD_MEDIA_TYPE) return 'jsonld';
  if (accept === JSON_MEDIA_TYPE) return 'json';
  // A charset is not a preference between these two (both are UTF-8), but Negotiator would require it to match.
  const chosen = new Negotiator({ headers: { accept: accept.replace(CHARSET_PARAMETER, '') } }).mediaType(OFFERED);
  return chosen === JSON_LD_MEDIA_TYPE ? 'jsonld' : chosen === JSON_MEDIA_TYPE ? 'json' : null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Drops JSON-LD keywords (`@context`, `@id`, `@type`) at every level, keeping everything else. */
function withoutJsonLdKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutJsonLdKeys);
  if (!isObject(value)) return value;
  const plain: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) if (!key.startsWith('@')) plain[key] = withoutJsonLdKeys(child);
  return plain;
}

/**
 * A JSON-LD answer as API Platform's `json` format gives it: a collection is the array of its
 * members (no Hydra envelope, so no total or page links), a resource its fields without the
 * JSON-LD keywords. Relations stay IRIs where the resource holds IRIs.
 */
export function toPlainJson(jsonLd: unknown): unknown {
  const members = isObject(jsonLd) && jsonLd['@type'] === 'hydra:Collection' ? jsonLd['hydra:member'] : undefined;
  return withoutJsonLdKeys(Array.isArray(members) ? members : jsonLd);
}
