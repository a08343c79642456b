import * as contracts from '@immo/contracts';
import { ADVERT_WEBHOOK_KINDS, ALERT_NOTIFICATIONS_STREAM, LISTINGS_INTEGRATION_STREAM, SERVICE_NAMES } from '@immo/contracts';
import { inboxPrefixOf, NATS_PRINCIPALS, natsPermissions, subjectMatches, type NatsPrincipal } from './nats-permissions';

const matches = subjectMatches;

const grants = natsPermissions();
const publishers = (subject: string) => NATS_PRINCIPALS.filter((principal) => grants[principal].publish.some((pattern) => matches(pattern, subject)));
const subscribers = (subject: string) => NATS_PRINCIPALS.filter((principal) => grants[principal].subscribe.some((pattern) => matches(pattern, subject)));

/**
 * Every subject the contracts name: each export called `*_SUBJECT` or `*_SUBJECTS`, its
 * functions called with a sample argument, plus the health subjects of each service. A subject
 * added there is found here without touching this test.
 */
function contractSubjects(): string[] {
  const subjects: string[] = [];
  const sample = (fn: (arg: never) => unknown): string => String(fn('sample' as never));
  for (const [name, value] of Object.entries(contracts)) {
    if (!/_SUBJECTS?$/.test(name)) continue;
    if (typeof value === 'string') subjects.push(value);
    else if (typeof value === 'object' && value !== null) {
      for (const entry of Object.values(value as Record<string, unknown>)) {
        if (typeof entry === 'string') subjects.push(entry);
        else if (typeof entry === 'function') subjects.push(sample(entry as (arg: never) => unknown));
      }
    }
  }
  for (const service of SERVICE_NAMES) subjects.push(contracts.pingSubject(service), contracts.rollCallSubject(service));
  for (const kind of ADVERT_WEBHOOK_KINDS) subjects.push(contracts.LISTINGS_INTEGRATION_SUBJECTS.advertEvent(kind));
  // Wildcard subscriptions (`listings.events.>`) name no single subject to send.
  return [...new Set(subjects)].filter((subject) => !subject.includes('>') && !subject.includes('*'));
}

/** Subjects carried by a JetStream stream: published into it, read through consumers (not core subscriptions). */
const streamOf = (subject: string): string | null =>
  matches(contracts.LISTINGS_INTEGRATION_SUBJECTS.all, subject) ? LISTINGS_INTEGRATION_STREAM : subject === contracts.ALERT_NOTIFICATIONS_SUBJECT ? ALERT_NOTIFICATIONS_STREAM : null;

describe('natsPermissions', () => {
  const subjects = contractSubjects();

  it('finds the subjects of the contracts (a sanity check of the enumeration)', () => {
    expect(subjects).toEqual(expect.arrayContaining([contracts.SEARCHES_SUBJECTS.createAccount, contracts.NOTIFIER_SUBJECTS.live('sample'), contracts.pingSubject('geo'), contracts.LISTINGS_INTEGRATION_SUBJECTS.advertEvent(ADVERT_WEBHOOK_KINDS[0])]));
    expect(subjects.length).toBeGreaterThan(50);
  });

  it.each(subjects)('grants %s to a sender and to a receiver', (subject) => {
    expect(publishers(subject).length).toBeGreaterThan(0);
    const stream = streamOf(subject);
    if (stream === null) expect(subscribers(subject).length).toBeGreaterThan(0);
    else expect(publishers(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.consumer`).length).toBeGreaterThan(0);
  });

  it('lets each principal subscribe to its own inbox and to no other principal’s', () => {
    for (const principal of NATS_PRINCIPALS) {
      const mine = `${inboxPrefixOf(principal)}.reply.1`;
      expect(subscribers(mine)).toEqual([principal]);
    }
    for (const grant of Object.values(grants)) expect(grant.subscribe.filter((pattern) => pattern.startsWith('_INBOX.') || pattern === '>' || pattern === '_INBOX_*.>')).toEqual([]);
  });

  it('grants the answers that hold secrets to nobody but the asker: no principal subscribes to a request subject it sends', () => {
    const secretBearing: [string, NatsPrincipal[]][] = [
      [contracts.SEARCHES_SUBJECTS.createAccount, ['gateway', 'admin']],
      [contracts.SEARCHES_SUBJECTS.issueKey, ['gateway', 'admin']],
      [contracts.NOTIFIER_SUBJECTS.webhookSecret, ['gateway']],
      [contracts.NOTIFIER_SUBJECTS.rotateWebhookSecret, ['gateway']],
    ];
    for (const [subject, askers] of secretBearing) {
      expect(publishers(subject).sort()).toEqual([...askers].sort());
      // Only the service that answers listens: nobody else sees the request, and answers go to the asker's inbox.
      expect(subscribers(subject)).toHaveLength(1);
    }
  });

  it('lets a principal answer into the inboxes of those that send it requests, and no others', () => {
    const answersInto = (principal: NatsPrincipal) => NATS_PRINCIPALS.filter((asker) => grants[principal].publish.some((pattern) => matches(pattern, `${inboxPrefixOf(asker)}.reply.1`)));
    expect(answersInto('geo').sort()).toEqual(['gateway', 'listings', 'searches']);
    expect(answersInto('notifier').sort()).toEqual(['admin', 'gateway']);
    expect(answersInto('shared-store').sort()).toEqual(['listings', 'notifier', 'searches']);
    expect(answersInto('crawler')).toEqual([]);
    // A listings replica forwards a batch to the one that leads ingestion, which answers it.
    expect(answersInto('listings').sort()).toEqual(['admin', 'crawler', 'gateway', 'listings', 'notifier']);
    expect(answersInto('gateway')).toEqual([]);
    // Nobody gets allow_responses' broad tracking, nor a wildcard over inboxes.
    for (const grant of Object.values(grants)) expect(grant.publish.filter((pattern) => pattern.startsWith('_INBOX.') || pattern === '_INBOX_*.>')).toEqual([]);
  });

  it('grants no service the deletion or purge of a stream, and no principal every subject', () => {
    for (const grant of Object.values(grants)) {
      expect(grant.publish.filter((pattern) => /^\$JS\.API\.STREAM\.(DELETE|PURGE)\./.test(pattern) || pattern === '>' || pattern === '$JS.API.>')).toEqual([]);
      expect(grant.subscribe).not.toContain('>');
    }
  });

  it('keeps each service to its own event store and shared-store database', () => {
    for (const service of SERVICE_NAMES) {
      for (const other of SERVICE_NAMES.filter((name) => name !== service)) {
        expect(grants[service].publish.some((pattern) => matches(pattern, `$JS.API.STREAM.INFO.${other.toUpperCase()}_EVENTS`))).toBe(false);
        expect(grants[service].publish.some((pattern) => matches(pattern, `docstore.${other}.v1`))).toBe(false);
      }
    }
  });
});
