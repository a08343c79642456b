/**
 * A saved search's body (spec: Search resource) validated into a `SearchSpec`: the fields as the
 * caller gave them, normalised, plus the criteria query that `GET /searches/{id}/properties` and
 * the alert matcher run. Criteria are validated by the criteria library, with the same messages as
 * `GET /documents/properties`; every bad field is reported at once, under its own name.
 */
import { ADVERT_WEBHOOK_KINDS, type Violation } from '@immo/contracts';
import { isPlainObject } from '@immo/runtime';
import { ENDPOINT_PARAMETERS, PARAMETER_ALIASES, parsePropertyCriteria, type PropertyCriteria } from '@immo/property-criteria';
import qs from 'qs';
import { z } from 'zod';
import { webhookUrlViolation, type PrivateTargetsAllowed } from '@immo/service-kit';
import { criteriaQueryOf } from './search-criteria-query';

/** Fields of the stored record the server writes: accepted in a body (a client sends back what it read) and ignored. */
export const READ_ONLY_FIELDS = new Set(['@context', '@id', '@type', 'id', 'createdAt', 'updatedAt', 'lastAlertAt', 'token', 'user', 'platformOrigin']);

/**
 * Query parameters that page or sort a result: they are not part of what a search selects. Nor are
 * the other names of a query parameter: a search holds each criterion under its main name.
 */
const NOT_SEARCH_CRITERIA = new Set(['page', 'itemsPerPage', 'order', ...Object.keys(PARAMETER_ALIASES)]);
const CRITERIA_FIELDS = new Set([...ENDPOINT_PARAMETERS.properties.names].filter((name) => !NOT_SEARCH_CRITERIA.has(name)));
const REQUIRED_CRITERIA = ['transactionType', 'propertyTypes'] as const;

const NOTIFICATION_FIELDS = ['notificationEnabled', 'endpointRecipient', 'eventEndpoint', 'subscribedEvents', 'notificationRecipient'] as const;
const OTHER_FIELDS = ['title', 'hidePropertyContact'] as const;
/** The original service's own Search fields, which no property filter is named after. */
const ORIGINAL_SEARCH_FIELDS = ['includedZipcodesInsee', 'initiatedFromDashboard'] as const;
export const SEARCH_FIELDS = new Set<string>([...CRITERIA_FIELDS, ...NOTIFICATION_FIELDS, ...OTHER_FIELDS, ...ORIGINAL_SEARCH_FIELDS]);

/** Relations given as IRIs (or as the objects a stored record holds): the criteria read their ids. */
const RELATION_FIELDS = new Set(['includedCities', 'excludedCities', 'includedDepartments']);
/** Site categories given by name (or as the objects a stored record holds). */
const SITE_CATEGORY_FIELDS = new Set(['includedSiteCategories', 'excludedSiteCategories']);

export interface SearchSpec {
  title: string;
  notificationEnabled: boolean;
  endpointRecipient: string | null;
  eventEndpoint: string | null;
  subscribedEvents: string[];
  notificationRecipient: string | null;
  hidePropertyContact: boolean | null;
  /**
   * Commune INSEE codes (upper-case), matched as `includedInseeCodes` (see `criteriaQueryOf`).
   * Absent, like `initiatedFromDashboard`, from searches stored before the field was read.
   */
  includedZipcodesInsee?: string[];
  /** Whether the client says the search was made from its dashboard; stored and listed by, nothing more. */
  initiatedFromDashboard?: boolean;
  /** The criteria fields as given (relations as IRIs), `withCoherentPrice` defaulted: what the record shows. */
  criteria: Record<string, unknown>;
}

/** `criteria`: the spec's criteria as the criteria library read them (place ids, typed values). */
export type SearchBodyResult = { ok: true; spec: SearchSpec; criteria: PropertyCriteria } | { ok: false; violations: Violation[] };

const title = z.string({ error: 'must be a text value' }).trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const flag = z.boolean({ error: 'must be true or false' });
const email = z.email({ error: 'must be an e-mail address' }).max(254, 'must be at most 254 characters');
const subscribedEvents = z.array(z.enum(ADVERT_WEBHOOK_KINDS, { error: `must be one of ${ADVERT_WEBHOOK_KINDS.join(', ')}` }), {
  error: 'must be an array of event kinds',
});

/** Reads and checks a body; the webhook hosts are checked without resolving them (see `resolvedTargetViolations`). */
export function parseSearchBody(body: unknown, allowed: PrivateTargetsAllowed): SearchBodyResult {
  if (!isPlainObject(body)) return { ok: false, violations: [{ propertyPath: '(root)', message: 'must be a JSON object of Search fields' }] };
  const violations: Violation[] = [];
  const fail = (propertyPath: string, message: string) => violations.push({ propertyPath, message });
  for (const name of Object.keys(body)) {
    if (!SEARCH_FIELDS.has(name) && !READ_ONLY_FIELDS.has(name)) fail(name, 'is not a Search field');
  }

  const read = <T>(name: string, schema: z.ZodType<T>): T | undefined => {
    const value = body[name];
    if (value === undefined || value === null) return undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    fail(name, parsed.error.issues[0]?.message ?? 'is invalid');
    return undefined;
  };

  const spec: SearchSpec = {
    title: read('title', title) ?? '',
    notificationEnabled: read('notificationEnabled', flag) ?? false,
    endpointRecipient: readUrl(body, 'endpointRecipient', allowed, fail),
    eventEndpoint: readUrl(body, 'eventEndpoint', allowed, fail),
    subscribedEvents: [...new Set(read('subscribedEvents', subscribedEvents) ?? [])],
    notificationRecipient: read('notificationRecipient', email) ?? null,
    hidePropertyContact: read('hidePropertyContact', flag) ?? null,
    includedZipcodesInsee: inseeCodes(body['includedZipcodesInsee'], violations),
    initiatedFromDashboard: read('initiatedFromDashboard', flag) ?? false,
    criteria: {},
  };
  if (body['title'] === undefined || body['title'] === null) fail('title', 'is required');
  // Notifications without an endpoint are allowed: they reach the search's live stream only.

  for (const name of REQUIRED_CRITERIA) if (body[name] === undefined || body[name] === null) fail(name, 'is required');
  const criteria: Record<string, unknown> = {};
  for (const name of CRITERIA_FIELDS) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    criteria[name] = RELATION_FIELDS.has(name)
      ? relationIris(value)
      : SITE_CATEGORY_FIELDS.has(name)
        ? siteCategoryNames(value)
        : name === 'expressions'
          ? expressionsOf(value)
          : value;
  }
  criteria['withCoherentPrice'] ??= true;
  spec.criteria = criteria;
  const parsed = parsePropertyCriteria(criteriaQueryOf(spec), { endpoint: 'properties' });
  if (!parsed.ok) violations.push(...parsed.violations);

  if (violations.length > 0 || !parsed.ok) return { ok: false, violations };
  return { ok: true, spec, criteria: parsed.criteria };
}

/** `includedZipcodesInsee`: checked as the criteria library checks `includedInseeCodes`, and named as given. */
function inseeCodes(value: unknown, violations: Violation[]): string[] {
  if (value === undefined || value === null) return [];
  const parsed = parsePropertyCriteria({ includedInseeCodes: value }, { endpoint: 'properties' });
  if (parsed.ok) return [...new Set(parsed.criteria.includedInseeCodes)];
  const renamed = (path: string) => path.replace(/^includedInseeCodes/, 'includedZipcodesInsee');
  violations.push(...parsed.violations.map((violation) => ({ ...violation, propertyPath: renamed(violation.propertyPath) })));
  return [];
}

function readUrl(body: Record<string, unknown>, name: string, allowed: PrivateTargetsAllowed, fail: (path: string, message: string) => void): string | null {
  const value = body[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') {
    fail(name, 'must be an https:// URL');
    return null;
  }
  const problem = webhookUrlViolation(value, allowed);
  if (problem) fail(name, problem);
  return problem ? null : value;
}

/** `/cities/75056`, `75056`, or `{"@id": "/cities/75056", ...}` as a stored record holds it. */
function relationIris(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) => (isPlainObject(item) && typeof item['@id'] === 'string' ? item['@id'] : item));
}

/** `portal`, or `{"name": "portal", ...}` as a stored record holds it. */
function siteCategoryNames(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) => (isPlainObject(item) && typeof item['name'] === 'string' ? item['name'] : item));
}

/**
 * The nested structure, or the one query-string text the spec shows for a search body
 * (`expressions[0][0][word]=jardin&...`, or without the leading name: `[0][0][word]=jardin`).
 */
function expressionsOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  const query = text.startsWith('[') ? `expressions${text.replace(/&\[/g, '&expressions[')}` : text;
  const parsed = qs.parse(query, { depth: 5, arrayLimit: 1000, parameterLimit: 2000, plainObjects: true }) as Record<string, unknown>;
  return parsed['expressions'] ?? value;
}
