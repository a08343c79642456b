/**
 * Who may publish and subscribe what on NATS: one NATS user per service, plus the operators' CLI,
 * crawlers and the one-machine shared store. Every list is built from the subject, stream and
 * bucket constants the code uses, so a subject added to the contracts is granted here or a test
 * fails (see nats-permissions.spec.ts), and a service asking for a subject outside its list is
 * refused by nats-server.
 *
 * Replies: a principal's requests get their answers on its own inbox prefix (`_INBOX_<name>`),
 * which only it may subscribe to, so an answer holding a secret (a new API key, a webhook signing
 * secret) reaches the principal that asked and no other. A principal may publish into the inboxes
 * of the principals that send it requests, and no others (derived below from the lists).
 * nats-server's `allow_responses` would say the same per request, but it records the reply subject
 * of every message a client receives, JetStream deliveries included, and pruning that record cost
 * listings 40 % of its ingestion rate (2,500 → 1,400 snapshots/s, `listings-ingest`).
 */
import {
  ALERT_NOTIFICATIONS_STREAM,
  ALERT_NOTIFICATIONS_SUBJECT,
  eventStreamOf,
  GEO_SUBJECTS,
  LISTINGS_INTEGRATION_STREAM,
  LISTINGS_INTEGRATION_SUBJECTS,
  LISTINGS_SUBJECTS,
  NATS_BUCKETS,
  NOTIFIER_SUBJECTS,
  pingSubject,
  rollCallSubject,
  SEARCHES_SUBJECTS,
  SERVICE_NAMES,
  type ServiceName,
} from '@immo/contracts';
import { sharedStorePartSubject, sharedStoreSubject, SHARED_STORE_PART_SUBJECTS, SHARED_STORE_SUBJECTS } from '@immo/document-store';

export const NATS_PRINCIPALS = ['gateway', ...SERVICE_NAMES, 'admin', 'crawler', 'shared-store'] as const;
export type NatsPrincipal = (typeof NATS_PRINCIPALS)[number];

export interface NatsGrant {
  publish: string[];
  subscribe: string[];
}

/** The inbox prefix of a principal's requests: only it may subscribe below it. */
export const inboxPrefixOf = (principal: NatsPrincipal): string => `_INBOX_${principal.replace(/-/g, '_')}`;

/** The NATS user name of a principal. */
export const natsUserOf = (principal: NatsPrincipal): string => principal;

/**
 * What a client of a stream needs from the JetStream API: look the stream up (and create it with
 * its settings when it is missing: whichever side starts first makes it), read messages by
 * sequence or subject, and run consumers on it (durable or ordered: create, info, fetch, ack,
 * flow control). Deleting or purging a stream is granted to no service.
 */
function streamClient(stream: string): NatsGrant {
  return {
    publish: [
      '$JS.API.INFO',
      `$JS.API.STREAM.INFO.${stream}`,
      `$JS.API.STREAM.CREATE.${stream}`,
      `$JS.API.STREAM.UPDATE.${stream}`,
      `$JS.API.STREAM.MSG.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}.>`,
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.*`,
      `$JS.API.CONSUMER.INFO.${stream}.*`,
      `$JS.API.CONSUMER.DELETE.${stream}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
      `$JS.ACK.${stream}.>`,
      `$JS.FC.${stream}.>`,
    ],
    subscribe: [],
  };
}

/** A key-value bucket: its stream, and writes to its keys. */
function bucket(name: string): NatsGrant {
  const stream = streamClient(`KV_${name}`);
  return { publish: [...stream.publish, `$KV.${name}.>`], subscribe: [] };
}

/** A service's own event store (the embedded runtime's JetStream stream). */
function eventStore(service: ServiceName): NatsGrant {
  const { name, subjectPrefix } = eventStreamOf(service);
  const stream = streamClient(name);
  return { publish: [...stream.publish, `${subjectPrefix}.>`], subscribe: [] };
}

/** Health subjects every service answers: ping (queue group) and roll call (every replica). */
function health(service: ServiceName): NatsGrant {
  return { publish: [], subscribe: [pingSubject(service), rollCallSubject(service)] };
}

/** Read models on the one-machine shared store: the service's own database only. */
function sharedStoreDatabase(service: ServiceName): NatsGrant {
  return { publish: [sharedStoreSubject(service), sharedStorePartSubject(service)], subscribe: [] };
}

const liveSubjects = NOTIFIER_SUBJECTS.live('*');

function merge(...grants: NatsGrant[]): NatsGrant {
  return {
    publish: [...new Set(grants.flatMap((grant) => grant.publish))].sort(),
    subscribe: [...new Set(grants.flatMap((grant) => grant.subscribe))].sort(),
  };
}

const requests = (...subjects: string[]): NatsGrant => ({ publish: subjects, subscribe: [] });
const handles = (...subjects: string[]): NatsGrant => ({ publish: [], subscribe: subjects });
/** Subjects published with no answer expected (announcements, stream messages): their listeners answer nobody. */
const BROADCAST_SUBJECTS = new Set<string>();
const broadcasts = (...subjects: string[]): NatsGrant => {
  for (const subject of subjects) BROADCAST_SUBJECTS.add(subject);
  return requests(...subjects);
};

/** The grants of every principal (its own inbox included). */
export function natsPermissions(): Record<NatsPrincipal, NatsGrant> {
  const S = SEARCHES_SUBJECTS;
  const L = LISTINGS_SUBJECTS;
  const N = NOTIFIER_SUBJECTS;
  const grants: Record<NatsPrincipal, NatsGrant> = {
    gateway: merge(
      requests(...Object.values(GEO_SUBJECTS)),
      requests(L.ingestAdverts, L.getProperty, L.listProperties, L.similarProperties, L.pricePerMeter, L.projectionStatus, L.rebuildProperties, L.siteCategories),
      requests(S.createAccount, S.listAccounts, S.issueKey, S.revokeKey, S.keyById, S.issuedKeyIds, S.createSearch, S.updateSearch, S.deleteSearch, S.disableNotifications, S.getSearch, S.searchCriteria, S.listSearches, S.listMatches, S.accountMatches, S.match),
      requests(N.deliveries, N.delivery, N.retryDelivery, N.webhookSecret, N.rotateWebhookSecret, N.testWebhook, N.recentNotifications, N.emailPreview),
      requests(...SERVICE_NAMES.flatMap((service) => [pingSubject(service), rollCallSubject(service)])),
      handles(S.keyRevoked, S.keyIssued, liveSubjects),
      bucket(NATS_BUCKETS.gatewayPresence),
      bucket(NATS_BUCKETS.gatewayRateLimits),
      bucket(NATS_BUCKETS.gatewayAuthFailures),
      bucket(NATS_BUCKETS.gatewayPublicRequests),
    ),
    listings: merge(
      handles(L.ingestAdverts, L.leaderIngest, L.getProperty, L.listProperties, L.similarProperties, L.pricePerMeter, L.projectionStatus, L.rebuildProperties, L.rebuildAnnounced, L.siteCategories),
      requests(L.leaderIngest),
      broadcasts(L.rebuildAnnounced),
      requests(GEO_SUBJECTS.cityByInsee, GEO_SUBJECTS.cityByZipcodeAndName, GEO_SUBJECTS.stations),
      health('listings'),
      eventStore('listings'),
      streamClient(LISTINGS_INTEGRATION_STREAM),
      broadcasts(LISTINGS_INTEGRATION_SUBJECTS.all),
      bucket(NATS_BUCKETS.listingsLeases),
      sharedStoreDatabase('listings'),
    ),
    geo: merge(handles(...Object.values(GEO_SUBJECTS)), health('geo')),
    searches: merge(
      handles(S.createAccount, S.listAccounts, S.issueKey, S.revokeKey, S.keyById, S.issuedKeyIds, S.createSearch, S.updateSearch, S.deleteSearch, S.disableNotifications),
      handles(S.getSearch, S.searchCriteria, S.listSearches, S.listMatches, S.accountMatches, S.match, S.notificationState, S.endpointGone),
      broadcasts(S.keyRevoked, S.keyIssued, S.searchChanged),
      requests(GEO_SUBJECTS.cityById, GEO_SUBJECTS.department),
      health('searches'),
      eventStore('searches'),
      streamClient(LISTINGS_INTEGRATION_STREAM),
      streamClient(ALERT_NOTIFICATIONS_STREAM),
      broadcasts(ALERT_NOTIFICATIONS_SUBJECT),
      bucket(NATS_BUCKETS.searchesAccountLocks),
      sharedStoreDatabase('searches'),
    ),
    notifier: merge(
      handles(N.deliveries, N.delivery, N.retryDelivery, N.webhookSecret, N.rotateWebhookSecret, N.testWebhook, N.recentNotifications, N.rekeyWebhookSecrets, N.emailPreview),
      handles(S.searchChanged),
      broadcasts(liveSubjects),
      requests(S.notificationState, S.endpointGone, L.listProperties),
      health('notifier'),
      streamClient(ALERT_NOTIFICATIONS_STREAM),
      sharedStoreDatabase('notifier'),
    ),
    // `npm run admin`: accounts and keys, re-encryption of the webhook secrets, and a rebuild of the listings read models.
    admin: merge(requests(S.createAccount, S.listAccounts, S.issueKey, S.revokeKey), requests(N.rekeyWebhookSecrets), requests(L.rebuildProperties)),
    // Crawlers inside the cluster send their batches straight to listings (plain JSON).
    crawler: requests(L.ingestAdverts),
    'shared-store': handles(SHARED_STORE_SUBJECTS, SHARED_STORE_PART_SUBJECTS),
  };
  // Who sends requests to whom, from the lists as written (before any inbox is granted).
  const answers = NATS_PRINCIPALS.map((principal) => ({ principal, askers: NATS_PRINCIPALS.filter((asker) => sendsTo(grants[asker].publish, grants[principal].subscribe)) }));
  for (const { principal, askers } of answers) {
    grants[principal].subscribe.push(`${inboxPrefixOf(principal)}.>`);
    // It answers on the inbox of whoever may send it a request.
    grants[principal].publish.push(...askers.map((asker) => `${inboxPrefixOf(asker)}.>`));
  }
  return grants;
}

/** NATS subject matching: `*` is one token, `>` the rest (one token or more). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** Whether a subject one list allows publishing is one the other listens to (a request that principal serves). */
function sendsTo(published: readonly string[], handled: readonly string[]): boolean {
  return published.some(
    (subject) => !subject.startsWith('$') && !BROADCAST_SUBJECTS.has(subject) && handled.some((pattern) => subjectMatches(pattern, subject) || subjectMatches(subject, pattern)),
  );
}
