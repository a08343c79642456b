/**
 * What is waiting to go out by e-mail: one item per notification whose search has a
 * `notificationRecipient`, written with the notification's delivery record (one commit), and
 * given to an e-mail (`emailId`) when the batcher forms one. Items are kept after their e-mail,
 * as the record of what it listed.
 */
import type { AlertNotification, NotificationKind } from '@immo/contracts';
import type { CollectionSpec, StoredDocument } from '@immo/document-store';

export interface EmailItemDoc extends StoredDocument {
  recipient: string;
  searchId: string;
  accountId: string;
  searchTitle: string | null;
  unsubscribeToken: string;
  kind: NotificationKind;
  propertyId: string;
  matchId: string;
  /** The webhook payload (Match or Event) the e-mail is written from. */
  payload: string;
  createdAt: string;
  /** When the notifier took it in: an e-mail goes out once its oldest item waited the batch window. */
  receivedAtMs: number;
  /** The e-mail listing it; null while it waits for one. */
  emailId: string | null;
}

export const EMAIL_ITEMS_COLLECTION: CollectionSpec = {
  name: 'notifier_email_items',
  indexes: [{ fields: { emailId: 1, receivedAtMs: 1 }, serves: 'items waiting for an e-mail, oldest first' }],
};

export function newEmailItem(notification: AlertNotification & { email: NonNullable<AlertNotification['email']> }, receivedAtMs: number): EmailItemDoc {
  return {
    _id: notification.id,
    revision: 1,
    recipient: notification.email.recipient.toLowerCase(),
    searchId: notification.searchId,
    accountId: notification.accountId,
    searchTitle: notification.email.searchTitle,
    unsubscribeToken: notification.email.unsubscribeToken,
    kind: notification.kind,
    propertyId: notification.propertyId,
    matchId: notification.matchId,
    payload: notification.payload,
    createdAt: notification.createdAt,
    receivedAtMs,
    emailId: null,
  };
}
