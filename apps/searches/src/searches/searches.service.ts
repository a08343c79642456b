import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rpcErrors, type AccountMatchesRequest, type Caller, type MatchesPage, type MatchListItem, type NotificationState, type SearchesPage, type SearchRecord, type SearchRelations, type SearchUpdateMerge, type Violation } from '@immo/contracts';
import { WrongExpectedVersionError, type EventStore } from '@immo/event-store';
import { nameBasedUuid } from '@immo/runtime';
import { KeyedSerializer, resolvedTargetViolation, type PrivateTargetsAllowed } from '@immo/service-kit';
import { READ_YOUR_WRITES_MS } from '../accounts/accounts.service';
import { CommandRejected } from '../command-rejected';
import type { AlertRecords } from '../matching/alert-records';
import type { PlaceRelations } from '../places/place-relations';
import type { SearchDoc } from '../projection/read-models';
import { tokenDigest, type SearchesProjection } from '../projection/searches-projection';
import { AccountBusyError, type CreationSerializer } from './account-creation-locks';
import { parseSearchBody, type SearchSpec } from './search-body';
import { evolveSearch, searchStream, type SearchEvent, type SearchIdempotency, type SearchState } from './search-events';
import { criteriaQueryOf } from './search-criteria-query';
import { searchRecordOf } from './search-record';
import { mergedBody, storedBodyOf } from './search-update';
import { listSearchesQuery } from './list-searches-query';

export const SEARCHES_PER_PAGE = 30;
/** An update made again on top of a concurrent write this many times at most, then refused as a conflict. */
const MAX_UPDATE_ATTEMPTS = 5;
/** How long an `Idempotency-Key` answers the search it created. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** Namespace of the search ids derived from an account and an `Idempotency-Key`. */
const IDEMPOTENT_SEARCH_NAMESPACE = '5f1d0c7e-2b7a-4c1e-9a53-6d8e0f4b1a27';

export interface SearchesServiceOptions {
  maxSearchesPerAccount: number;
  allowed: PrivateTargetsAllowed;
  now?: () => Date;
  /**
   * Runs one account's creations one at a time: across every replica in a service (see
   * `AccountCreationLocks`), in this process only by default.
   */
  creations?: CreationSerializer;
}

const badRequest = (violations: Violation[]) =>
  new CommandRejected(rpcErrors.badRequest(`Invalid search: ${violations.map((v) => v.propertyPath).join(', ')}`, violations));

/**
 * Saved searches: commands append to the search's stream and answer with the state the stream
 * holds (after waiting, for a while, for the read model to hold it too, so that a read right after
 * finds it); queries read the read model. Another account's search is "not found", never
 * "forbidden", so ids leak nothing.
 *
 * A creation with an `Idempotency-Key` creates the search whose id derives from the account and
 * the key: a retry (from any replica) finds that stream already written and answers the search it
 * holds, for 24 hours; the same key with another request is refused.
 */
export class SearchesService {
  private readonly now: () => Date;
  /** Creations of one account run one at a time, so the limit is not overrun. */
  private readonly creating: CreationSerializer;

  constructor(
    private readonly eventStore: EventStore,
    private readonly projection: SearchesProjection,
    private readonly places: PlaceRelations,
    private readonly alerts: AlertRecords,
    private readonly options: SearchesServiceOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.creating = options.creations ?? new KeyedSerializer();
  }

  async create(caller: Caller, body: unknown, platformOrigin: string | null, idempotencyKey: string | null = null): Promise<SearchRecord> {
    const idempotency = idempotencyKey === null ? null : { key: idempotencyKey, requestDigest: requestDigest(body, platformOrigin) };
    const keyedId = idempotency === null ? null : nameBasedUuid(`${caller.accountId}\n${idempotency.key}`, IDEMPOTENT_SEARCH_NAMESPACE);
    const { spec, relations } = await this.validated(body);
    return this.creating.run(caller.accountId, () => this.createAlone(caller, spec, relations, platformOrigin, idempotency, keyedId)).catch((error: unknown) => {
      if (error instanceof AccountBusyError) throw new CommandRejected(rpcErrors.unavailable(`${error.message}; try again in a moment.`));
      throw error;
    });
  }

  /** A creation while no other of the account runs. */
  private async createAlone(
    caller: Caller,
    spec: SearchSpec,
    relations: SearchRelations,
    platformOrigin: string | null,
    idempotency: SearchIdempotency | null,
    keyedId: string | null,
  ): Promise<SearchRecord> {
    const earlier = keyedId !== null && idempotency !== null ? await this.earlierCreation(caller, keyedId, idempotency) : 'none';
    if (typeof earlier === 'object') return earlier;
    // The count must see every creation before this one, whichever replica appended it.
    await this.readModelAtLogHead();
    const count = await this.projection.searches.count({ accountId: caller.accountId });
    if (count >= this.options.maxSearchesPerAccount) {
      throw new CommandRejected(rpcErrors.conflict(`This account already has ${count} searches, the most it may hold; delete one first.`));
    }
    // A key whose search is older than the window creates a search of its own, as without a key.
    const searchId = keyedId !== null && earlier === 'none' ? keyedId : randomUUID();
    const created: SearchEvent = {
      type: 'SearchCreated',
      data: {
        searchId,
        accountId: caller.accountId,
        spec,
        relations,
        token: randomBytes(24).toString('base64url'),
        platformOrigin,
        createdAt: this.now().toISOString(),
        ...(idempotency !== null ? { idempotency } : {}),
      },
    };
    try {
      await this.append(searchId, 'no_stream', created);
    } catch (error) {
      // The same key sent twice at once: the other request created it.
      if (!(error instanceof WrongExpectedVersionError) || keyedId === null || idempotency === null) throw error;
      const winner = await this.earlierCreation(caller, keyedId, idempotency);
      if (typeof winner !== 'object') throw error;
      return winner;
    }
    return searchRecordOf(evolveSearch(null, created) as SearchState, null);
  }

  /** Waits until the read model holds every event the log holds now (refused as unavailable after a while). */
  private async readModelAtLogHead(): Promise<void> {
    const head = await this.eventStore.headPosition();
    if (head !== null && !(await this.projection.waitFor(head, READ_YOUR_WRITES_MS))) {
      throw new CommandRejected(rpcErrors.unavailable('The searches read model is behind its log; try again in a moment.'));
    }
  }

  /**
   * The search an earlier request with this key created, when there is one within the window;
   * `expired` when it is older, `none` when there is none. The key sent with another request
   * (body or platform) is refused.
   */
  private async earlierCreation(caller: Caller, searchId: string, idempotency: SearchIdempotency): Promise<SearchRecord | 'expired' | 'none'> {
    const { state } = await this.stateOf(searchId);
    if (state === null || state.accountId !== caller.accountId) return 'none';
    if (this.now().getTime() - Date.parse(state.createdAt) > IDEMPOTENCY_WINDOW_MS) return 'expired';
    if (state.idempotency?.requestDigest !== idempotency.requestDigest) {
      throw new CommandRejected(
        rpcErrors.conflict('This Idempotency-Key was sent with another request: send a new key for a new search.', [
          { propertyPath: 'Idempotency-Key', message: 'was used within 24 hours with another request' },
        ]),
      );
    }
    if (state.deleted) throw new CommandRejected(rpcErrors.notFound(`The search created with this Idempotency-Key (${searchId}) has been deleted.`));
    const lastAlerts = await this.alerts.lastAlertAt([searchId]);
    return searchRecordOf(state, lastAlerts.get(searchId) ?? null);
  }

  /**
   * The fields sent laid over the stored search (see search-update.ts), the result validated as a
   * whole: a refused update changes nothing. The merge is made on the stream's latest revision and
   * appended only if no other write came in between; if one did, it is made again on top of that
   * one, so two updates racing both keep their fields.
   */
  async update(caller: Caller, searchId: string, body: unknown, platformOrigin: string | null, merge: SearchUpdateMerge = 'fields'): Promise<SearchRecord> {
    for (let attempt = 1; ; attempt++) {
      const { state, revision } = await this.owned(caller, searchId);
      const merged = mergedBody(storedBodyOf(state.spec), body, merge);
      if (!merged.ok) throw badRequest(merged.violations);
      const { spec, relations } = await this.validated(merged.body);
      const updated: SearchEvent = { type: 'SearchUpdated', data: { searchId: state.id, spec, relations, platformOrigin, updatedAt: this.now().toISOString() } };
      try {
        await this.append(state.id, revision, updated);
      } catch (error) {
        if (error instanceof WrongExpectedVersionError && attempt < MAX_UPDATE_ATTEMPTS) continue;
        throw error;
      }
      const lastAlerts = await this.alerts.lastAlertAt([state.id]);
      return searchRecordOf(evolveSearch(state, updated) as SearchState, lastAlerts.get(state.id) ?? null);
    }
  }

  async delete(caller: Caller, searchId: string): Promise<void> {
    const { revision } = await this.owned(caller, searchId);
    await this.append(searchId, revision, { type: 'SearchDeleted', data: { searchId, deletedAt: this.now().toISOString() } });
  }

  async get(caller: Caller, searchId: string): Promise<SearchRecord> {
    const doc = await this.ownedDoc(caller, searchId);
    return searchRecordOf(doc.state, (await this.alerts.lastAlertAt([doc._id])).get(doc._id) ?? null);
  }

  /** A search's matches, newest first. */
  async matches(caller: Caller, searchId: string, page: number): Promise<MatchesPage> {
    const doc = await this.ownedDoc(caller, searchId);
    return this.alerts.matchesOf(doc._id, page);
  }

  /**
   * The caller's matches across its searches. Those of a deleted search are left out: the search
   * they name is gone (the matcher, which writes matches, keeps them).
   */
  async accountMatches(caller: Caller, request: Omit<AccountMatchesRequest, 'caller'>): Promise<MatchesPage> {
    const live = await this.liveSearchIds(caller.accountId);
    const searchIds = request.searchIds ? request.searchIds.map((id) => id.toLowerCase()).filter((id) => live.has(id)) : [...live];
    return this.alerts.matchesOfAccount(caller.accountId, {
      searchIds,
      ...(request.propertyIds ? { propertyIds: request.propertyIds.map((id) => id.toLowerCase()) } : {}),
      order: request.order,
      page: request.page,
      itemsPerPage: request.itemsPerPage,
    });
  }

  /** One of the caller's matches; another account's, or one of a deleted search, is not found. */
  async match(caller: Caller, matchId: string): Promise<MatchListItem> {
    const found = await this.alerts.matchOfAccount(caller.accountId, matchId.toLowerCase());
    const search = found ? await this.projection.searches.findById(found.searchId) : null;
    if (!found || !search) throw new CommandRejected(rpcErrors.notFound(`Match ${matchId} was not found.`));
    return found.match;
  }

  private async liveSearchIds(accountId: string): Promise<Set<string>> {
    const docs = await this.projection.searches.find({ accountId }, { projection: { _id: 1 } });
    return new Set(docs.map((doc) => doc._id));
  }

  /** Whether a search still wants notifications (the notifier asks before each attempt). */
  async notificationState(searchId: string): Promise<NotificationState> {
    const doc = await this.projection.searches.findById(searchId.toLowerCase());
    const spec = doc?.state.spec;
    return {
      searchId,
      active: spec?.notificationEnabled === true,
      endpointRecipient: spec?.endpointRecipient ?? null,
      eventEndpoint: spec?.eventEndpoint ?? null,
      notificationRecipient: spec?.notificationRecipient ?? null,
    };
  }

  /**
   * A receiver answered 410 Gone: the search's notifications are turned off (its owner turns them
   * back on with an update), if the endpoint is still one of the search's.
   */
  async endpointGone(searchId: string, endpoint: string): Promise<boolean> {
    const { state, revision } = await this.stateOf(searchId.toLowerCase());
    if (state === null || state.deleted || !state.spec.notificationEnabled) return false;
    if (state.spec.endpointRecipient !== endpoint && state.spec.eventEndpoint !== endpoint) return false;
    await this.append(state.id, revision, {
      type: 'SearchNotificationsDisabled',
      data: { searchId: state.id, reason: 'endpoint-gone', comment: `${endpoint} answered 410 Gone`, disabledAt: this.now().toISOString() },
    });
    return true;
  }

  /** The criteria query of a search, to run as `GET /documents/properties` would. */
  async criteriaQuery(caller: Caller, searchId: string): Promise<Record<string, unknown>> {
    return criteriaQueryOf((await this.ownedDoc(caller, searchId)).state.spec);
  }

  async list(caller: Caller, query: Record<string, unknown>): Promise<SearchesPage<SearchRecord>> {
    const parsed = listSearchesQuery(query);
    if (!parsed.ok) throw badRequest(parsed.violations);
    const { filter, sort, page, ignored } = parsed.value;
    const where = { accountId: caller.accountId, ...filter };
    const [docs, totalItems] = await Promise.all([
      this.projection.searches.find(where, { sort, skip: (page - 1) * SEARCHES_PER_PAGE, limit: SEARCHES_PER_PAGE }),
      this.projection.searches.count(where),
    ]);
    const lastAlerts = await this.alerts.lastAlertAt(docs.map((doc) => doc._id));
    return { items: docs.map((doc) => searchRecordOf(doc.state, lastAlerts.get(doc._id) ?? null)), totalItems, page, itemsPerPage: SEARCHES_PER_PAGE, ignoredParameters: ignored };
  }

  /**
   * The public unsubscribe link: turns notifications off for the search holding the token. False
   * for an unknown token. Tokens are found by their SHA-256 digest: what a look-up's timing could
   * tell is about the digest of the guess, which says nothing of a token of 192 random bits, so
   * no constant-time comparison is needed (one after finding the record by that very digest
   * could never fail).
   */
  async disableNotifications(token: string, reason: string | null, comment: string | null): Promise<boolean> {
    const [doc] = await this.projection.searches.find({ tokenDigest: tokenDigest(token) }, { limit: 1 });
    if (!doc) return false;
    if (!doc.state.spec.notificationEnabled) return true;
    const { revision } = await this.stateOf(doc._id);
    await this.append(doc._id, revision, { type: 'SearchNotificationsDisabled', data: { searchId: doc._id, reason, comment, disabledAt: this.now().toISOString() } });
    return true;
  }

  private async validated(body: unknown): Promise<{ spec: SearchSpec; relations: SearchRelations }> {
    const parsed = parseSearchBody(body, this.options.allowed);
    if (!parsed.ok) throw badRequest(parsed.violations);
    const { spec, criteria } = parsed;
    const targetViolations: Violation[] = [];
    for (const field of ['endpointRecipient', 'eventEndpoint'] as const) {
      const url = spec[field];
      const problem = url === null ? null : await resolvedTargetViolation(url, this.options.allowed);
      if (problem) targetViolations.push({ propertyPath: field, message: problem });
    }
    if (targetViolations.length > 0) throw badRequest(targetViolations);
    const places = await this.places.resolve({
      includedCities: criteria.includedCities,
      excludedCities: criteria.excludedCities,
      includedDepartments: criteria.includedDepartments,
    });
    if (!places.ok) throw badRequest(places.violations);
    return { spec, relations: places.relations };
  }

  private async ownedDoc(caller: Caller, searchId: string): Promise<SearchDoc> {
    const doc = await this.projection.searches.findById(searchId.toLowerCase());
    if (!doc || doc.accountId !== caller.accountId) throw new CommandRejected(rpcErrors.notFound(`Search ${searchId} was not found.`));
    return doc;
  }

  /** The search's state from its stream, if it exists, is not deleted and is the caller's. */
  private async owned(caller: Caller, searchId: string): Promise<{ state: SearchState; revision: number }> {
    const found = await this.stateOf(searchId.toLowerCase());
    if (found.state === null || found.state.deleted || found.state.accountId !== caller.accountId) {
      throw new CommandRejected(rpcErrors.notFound(`Search ${searchId} was not found.`));
    }
    return { state: found.state, revision: found.revision };
  }

  private async stateOf(searchId: string): Promise<{ state: SearchState | null; revision: number }> {
    const events = await this.eventStore.readStream(searchStream(searchId));
    let state: SearchState | null = null;
    for (const event of events) state = evolveSearch(state, event as unknown as SearchEvent);
    return { state, revision: events.length - 1 };
  }

  private async append(searchId: string, expectedRevision: number | 'no_stream', event: SearchEvent): Promise<void> {
    const result = await this.eventStore.append(searchStream(searchId), [{ id: randomUUID(), type: event.type, data: event.data }], { expectedRevision });
    await this.projection.waitFor(result.position, READ_YOUR_WRITES_MS);
  }
}

/** What identifies a creation request beside its key: its body and platform, as sent. */
function requestDigest(body: unknown, platformOrigin: string | null): string {
  return createHash('sha256').update(JSON.stringify({ body, platformOrigin })).digest('hex');
}
