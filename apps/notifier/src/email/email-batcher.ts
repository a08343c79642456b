/**
 * Forms alert e-mails from the items waiting for one: the items of one recipient and one search
 * go out together once the oldest of them waited the batch window (`MAIL_BATCH_WINDOW_MS`), so a
 * first match is never held longer than that, and at most `MAIL_MAX_PER_RECIPIENT_PER_HOUR`
 * e-mails go to an address in an hour; what is beyond waits for a later e-mail, nothing is
 * dropped.
 *
 * An e-mail is a delivery record (`channel: email`) written in one commit with its items' link to
 * it, on the condition that none of those items changed since they were read: replicas sharing
 * the ledger may both form the batch, and only one commit holds. The dispatcher then attempts it
 * like a webhook (claim, breaker per SMTP server, retries), and it is rendered here once, so every
 * attempt sends the same message.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CommitConflictError, type DocumentCollection, type DocumentStore } from '@immo/document-store';
import { DELIVERIES_COLLECTION, type DeliveryDoc } from '../deliveries/delivery-records';
import type { EmailItemDoc } from './email-items';
import { EMAIL_ITEMS_COLLECTION } from './email-items';
import type { EmailMessage } from './smtp-mailer';

export interface EmailBatchPolicy {
  windowMs: number;
  maxPerRecipientPerHour: number;
}

/** Writes an e-mail's message from its items (see alert-email.ts). */
export type ComposeEmail = (batch: { searchTitle: string | null; items: readonly EmailItemDoc[]; unsubscribeUrl: string }) => EmailMessage;

/** The `emailId` of items no e-mail could be written from. */
export const UNREADABLE = 'unreadable';
/** The notifications one e-mail lists at most; more wait for the next one. */
export const MAX_ITEMS_PER_EMAIL = 50;
/** Items read per pass: the oldest first. */
const SCAN_LIMIT = 5_000;
const HOUR_MS = 3_600_000;

interface FormedEmail {
  email: DeliveryDoc;
  items: readonly EmailItemDoc[];
}

export interface EmailBatcherCounters {
  formed: number;
  /** Batches due but held back by the hourly cap, counted each pass they wait. */
  heldByCap: number;
  /** Batches another replica formed first. */
  conflicts: number;
}

export class EmailBatcher {
  private readonly logger = new Logger('EmailBatcher');
  private readonly items: DocumentCollection<EmailItemDoc>;
  private readonly deliveries: DocumentCollection<DeliveryDoc>;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  readonly counters: EmailBatcherCounters = { formed: 0, heldByCap: 0, conflicts: 0 };

  constructor(
    private readonly store: DocumentStore,
    private readonly compose: ComposeEmail,
    private readonly policy: EmailBatchPolicy,
    private readonly unsubscribeUrlOf: (token: string) => string,
    /** An e-mail just formed: attempt it now. */
    private readonly formed: (doc: DeliveryDoc) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.items = store.collection<EmailItemDoc>(EMAIL_ITEMS_COLLECTION);
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  /** How often due batches are looked for: a small part of the window, within bounds. */
  get passMs(): number {
    return Math.min(5_000, Math.max(100, Math.floor(this.policy.windowMs / 5)));
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * One pass: forms every batch that is due and within its recipient's cap, all in one commit (a
   * commit per e-mail held a pass to about 120 e-mails a second on the embedded store). When
   * another replica formed one of them meanwhile, the pass's commit holds nothing, and each e-mail
   * is formed on its own so that only that one is given up.
   */
  async pass(): Promise<void> {
    const waiting = await this.items.find({ emailId: null }, { sort: { receivedAtMs: 1 }, limit: SCAN_LIMIT });
    const batches = new Map<string, EmailItemDoc[]>();
    for (const item of waiting) {
      const key = `${item.recipient}\n${item.searchId}`;
      const batch = batches.get(key);
      if (batch) batch.push(item);
      else batches.set(key, [item]);
    }
    const nowMs = this.now();
    const sentThisHour = new Map<string, number>();
    const emails: FormedEmail[] = [];
    for (const batch of batches.values()) {
      const first = batch[0] as EmailItemDoc;
      if (first.receivedAtMs + this.policy.windowMs > nowMs) continue;
      const sent = sentThisHour.get(first.recipient) ?? (await this.emailsSince(first.recipient, nowMs - HOUR_MS));
      if (sent >= this.policy.maxPerRecipientPerHour) {
        this.counters.heldByCap++;
        sentThisHour.set(first.recipient, sent);
        continue;
      }
      const email = await this.written(batch.slice(0, MAX_ITEMS_PER_EMAIL), nowMs);
      if (email === null) continue;
      emails.push(email);
      sentThisHour.set(first.recipient, sent + 1);
    }
    if (emails.length === 0) return;
    try {
      await this.commit(emails);
    } catch (error) {
      if (!(error instanceof CommitConflictError)) throw error;
      for (const email of emails) {
        try {
          await this.commit([email]);
        } catch (single) {
          if (!(single instanceof CommitConflictError)) throw single;
          // Another replica formed an e-mail of these items first.
          this.counters.conflicts++;
        }
      }
    }
  }

  private async emailsSince(recipient: string, sinceMs: number): Promise<number> {
    return this.deliveries.count({ endpoint: mailto(recipient), createdAt: { $gte: new Date(sinceMs).toISOString() } });
  }

  /** Commits e-mails with their items' link to them, if none of those items changed since read. */
  private async commit(emails: readonly FormedEmail[]): Promise<void> {
    await this.store.commit(
      emails.flatMap(({ email, items }) => [
        { collection: DELIVERIES_COLLECTION.name, upsert: email },
        ...items.map((item) => ({ collection: EMAIL_ITEMS_COLLECTION.name, upsert: { ...item, revision: item.revision + 1, emailId: email._id } })),
      ]),
      { expect: emails.flatMap(({ items }) => items.map((item) => ({ collection: EMAIL_ITEMS_COLLECTION.name, id: item._id, revision: item.revision }))) },
    );
    for (const { email } of emails) {
      this.counters.formed++;
      this.formed(email);
    }
  }

  /** The e-mail of a batch, rendered; null when nothing readable could be written (its items are set aside). */
  private async written(items: EmailItemDoc[], nowMs: number): Promise<FormedEmail | null> {
    const first = items[0] as EmailItemDoc;
    // The newest title and token the items carry: a search renamed meanwhile is named as it is now.
    const newest = items[items.length - 1] as EmailItemDoc;
    const unsubscribeUrl = this.unsubscribeUrlOf(newest.unsubscribeToken);
    const id = randomUUID();
    let message: EmailMessage;
    try {
      message = this.compose({ searchTitle: newest.searchTitle, items, unsubscribeUrl });
    } catch (error) {
      // Nothing readable to tell (payloads that cannot be read): set aside rather than tried at every pass.
      this.logger.error(`${items.length} notification(s) for ${first.recipient} cannot make an e-mail (${String(error)}); set aside`);
      await this.store.commit(items.map((item) => ({ collection: EMAIL_ITEMS_COLLECTION.name, upsert: { ...item, revision: item.revision + 1, emailId: UNREADABLE } })));
      return null;
    }
    const email: DeliveryDoc = {
      _id: id,
      revision: 1,
      channel: 'email',
      notificationIds: items.map((item) => item._id),
      searchId: first.searchId,
      accountId: first.accountId,
      kind: first.kind,
      endpoint: mailto(first.recipient),
      propertyId: first.propertyId,
      matchId: first.matchId,
      payload: JSON.stringify({ ...message, unsubscribeUrl }),
      createdAt: new Date(nowMs).toISOString(),
      streamSeq: -1,
      status: 'pending',
      attempts: [],
      nextAttemptAtMs: nowMs,
      failure: null,
      attemptStartedAt: null,
    };
    return { email, items };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass()
        .catch((error: unknown) => this.logger.warn(`forming e-mails failed: ${String(error)}; trying again`))
        .finally(() => {
          this.running = null;
          this.schedule(this.passMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}

/** An e-mail's endpoint in the delivery log, and back. */
export const mailto = (recipient: string): string => `mailto:${recipient}`;
export const recipientOf = (endpoint: string): string | null => (endpoint.startsWith('mailto:') ? endpoint.slice('mailto:'.length) : null);
