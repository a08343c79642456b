/**
 * The delivery ledger: one record per notification, written before its first attempt and
 * updated after each one. Every webhook the matcher decided is here as pending, delivered or
 * failed (created = delivered + failed + pending), and the record's id is the `webhook-id` every
 * attempt sends. A notification without an endpoint is kept as `streamed` (live stream only).
 *
 * An e-mail is a record of the same ledger (`channel: email`), written when a batch of a
 * recipient's notifications is formed (see EmailBatcher) and attempted like a webhook; its id is
 * the message's `Message-ID`, the same on every attempt.
 */
import { parisTimestamp, type AlertNotification, type DeliveryAttempt, type DeliveryStatus, type DeliveryView, type NotificationKind } from '@immo/contracts';
import type { CollectionSpec, StoredDocument } from '@immo/document-store';

export interface DeliveryDoc extends StoredDocument {
  /** Absent from records written before e-mails existed: a webhook. */
  channel?: 'webhook' | 'email';
  /** An e-mail's notifications (their ids). */
  notificationIds?: string[];
  searchId: string;
  accountId: string;
  kind: NotificationKind;
  /** Null: the search has no endpoint for this kind; the notification went to its live stream only. `mailto:` for an e-mail. */
  endpoint: string | null;
  propertyId: string;
  matchId: string;
  /** The JSON body every attempt sends, byte for byte (the signature covers it); an e-mail's rendered message (`EmailMessage`, JSON). */
  payload: string;
  createdAt: string;
  /** Sequence of the notification in its stream: the live stream resumes after one. -1 for an e-mail (never streamed). */
  streamSeq: number;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** When the next attempt is due (pending only). */
  nextAttemptAtMs: number | null;
  /** Why a failed delivery stopped (last answer, or the search went away). */
  failure: string | null;
  /**
   * When the claim's holder started its attempt; cleared when it records the outcome. Still set
   * when the next holder claims it: that attempt was interrupted (see `interruptedAttempt`).
   * Absent from records written before it existed.
   */
  attemptStartedAt?: string | null;
}

/**
 * The history's entry for an attempt whose holder stopped (a crash, kill -9) before recording its
 * outcome: the receiver may have had it, and the next attempt sends the same `webhook-id`.
 */
export function interruptedAttempt(startedAt: string): DeliveryAttempt {
  return {
    at: startedAt,
    statusCode: null,
    durationMs: 0,
    error: 'interrupted: the replica making it stopped before recording the outcome; the receiver may have received it, and it is sent again with the same webhook-id',
  };
}

export const DELIVERIES_COLLECTION: CollectionSpec = {
  name: 'notifier_deliveries',
  indexes: [
    { fields: { searchId: 1, createdAt: -1 }, serves: "a search's deliveries, newest first" },
    { fields: { searchId: 1, streamSeq: 1 }, serves: "a search's notifications after a given one (live stream resume)" },
    { fields: { status: 1, nextAttemptAtMs: 1 }, serves: 'pending deliveries that are due' },
    { fields: { propertyId: 1, searchId: 1 }, serves: "a search's earlier deliveries about a property still pending (order per property)" },
    { fields: { endpoint: 1, createdAt: 1 }, serves: 'e-mails to one address in the last hour (the hourly cap)' },
  ],
};

export function newDelivery(notification: AlertNotification, streamSeq: number, nowMs: number): DeliveryDoc {
  return {
    _id: notification.id,
    revision: 1,
    searchId: notification.searchId,
    accountId: notification.accountId,
    kind: notification.kind,
    endpoint: notification.endpoint,
    propertyId: notification.propertyId,
    matchId: notification.matchId,
    payload: notification.payload,
    createdAt: notification.createdAt,
    streamSeq,
    status: notification.endpoint === null ? 'streamed' : 'pending',
    attempts: [],
    nextAttemptAtMs: notification.endpoint === null ? null : nowMs,
    failure: null,
    attemptStartedAt: null,
  };
}

export function deliveryView(doc: DeliveryDoc): DeliveryView {
  return {
    id: doc._id,
    searchId: doc.searchId,
    channel: doc.channel ?? 'webhook',
    kind: doc.kind,
    endpoint: doc.endpoint,
    notifications: doc.notificationIds ?? [doc._id],
    status: doc.status,
    createdAt: parisTimestamp(doc.createdAt),
    nextAttemptAt: doc.status === 'pending' && doc.nextAttemptAtMs !== null ? parisTimestamp(doc.nextAttemptAtMs) : null,
    attempts: doc.attempts.map((attempt) => ({ ...attempt, at: parisTimestamp(attempt.at) })),
  };
}
