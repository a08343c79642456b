import { parisTimestamp, parisTimestampOrNull, SEARCH_RECORD_LISTS, SEARCH_RECORD_VALUES, siteCategoryRelation, type SearchRecord, type SiteCategoryRelation } from '@immo/contracts';
import { SEARCH_FIELDS } from './search-body';
import type { SearchState } from './search-events';

/** The criteria every record shows (see SEARCH_RECORD_LISTS), those this service reads, unset. */
const unsetCriteria = (): Record<string, unknown> =>
  Object.fromEntries([
    ...SEARCH_RECORD_LISTS.filter((name) => SEARCH_FIELDS.has(name)).map((name) => [name, []]),
    ...SEARCH_RECORD_VALUES.filter((name) => SEARCH_FIELDS.has(name)).map((name) => [name, null]),
  ]);

/**
 * The record the API answers (spec: Search resource): the fields as given, relations as objects,
 * times in Paris time with their offset (`parisTimestamp`), and every field of the original's resource even when unset. Numbers and
 * lists keep the types the body had (the original service showed `lat` as a string and
 * `propertyTypes` as one integer; clients get what they sent).
 * `lastAlertAt` is kept by the matcher beside the search (see alert-records.ts).
 */
export function searchRecordOf(state: SearchState, lastAlertAt: string | null = state.lastAlertAt): SearchRecord {
  const { spec } = state;
  const record: SearchRecord = {
    '@context': '/contexts/Search',
    '@id': `/searches/${state.id}`,
    '@type': 'Search',
    id: state.id,
    title: spec.title,
    ...unsetCriteria(),
    ...spec.criteria,
    includedCities: state.relations.includedCities,
    excludedCities: state.relations.excludedCities,
    includedDepartments: state.relations.includedDepartments,
    includedSiteCategories: siteCategories(spec.criteria['includedSiteCategories']),
    excludedSiteCategories: siteCategories(spec.criteria['excludedSiteCategories']),
    includedZipcodesInsee: spec.includedZipcodesInsee ?? [],
    hidePropertyContact: spec.hidePropertyContact,
    initiatedFromDashboard: spec.initiatedFromDashboard ?? false,
    notificationEnabled: spec.notificationEnabled,
    endpointRecipient: spec.endpointRecipient,
    eventEndpoint: spec.eventEndpoint,
    subscribedEvents: spec.subscribedEvents,
    notificationRecipient: spec.notificationRecipient,
    createdAt: parisTimestamp(state.createdAt),
    updatedAt: parisTimestamp(state.updatedAt),
    lastAlertAt: parisTimestampOrNull(lastAlertAt),
    token: state.token,
    user: `/users/${state.accountId}`,
  };
  if (state.platformOrigin !== null) record['platformOrigin'] = state.platformOrigin;
  return record;
}

/** Site categories as the spec's records show them: objects naming the category. */
function siteCategories(value: unknown): SiteCategoryRelation[] {
  const names = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return names.map((name) => siteCategoryRelation(String(name)));
}
