/**
 * Takes the notifications the matcher published (a durable JetStream consumer) into the delivery
 * ledger: each is recorded as pending before its first attempt, in one commit per batch, and
 * acknowledged after that commit. A notification whose id the ledger already holds (a
 * republished or redelivered message, however late) is dropped. Once recorded, each goes to the
 * search's live stream and to the dispatcher. A notification for a search with an e-mail
 * recipient also waits for its e-mail (an item written in the same commit, see EmailBatcher).
 */
import { Logger } from '@nestjs/common';
import type { JsMsg, NatsConnection } from 'nats';
import { alertNotificationSchema, NOTIFIER_SUBJECTS, type AlertNotification, type LiveNotification } from '@immo/contracts';
import type { DocumentCollection, DocumentStore, DocumentWrite } from '@immo/document-store';
import { EMAIL_ITEMS_COLLECTION, newEmailItem } from '../email/email-items';
import { ALERT_NOTIFICATIONS_STREAM_SETTINGS, DurableBatchConsumer, replicated } from '@immo/service-kit';
import type { DeliveryDispatcher } from './delivery-dispatcher';
import { DELIVERIES_COLLECTION, newDelivery, type DeliveryDoc } from './delivery-records';

export const NOTIFIER_CONSUMER = 'notifier-deliveries';
const MAX_BATCH = 256;
const ACK_WAIT_MS = 30_000;

export class DeliveryIntake {
  private readonly logger = new Logger('DeliveryIntake');
  private readonly deliveries: DocumentCollection<DeliveryDoc>;
  private readonly consumer: DurableBatchConsumer;
  private recorded = 0;
  private duplicates = 0;

  constructor(
    private readonly nats: NatsConnection,
    private readonly store: DocumentStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly now: () => number = Date.now,
    /** Copies of the notifications stream in a NATS cluster (`NATS_REPLICAS`). */
    replicas = 1,
    /** Whether e-mails are sent (an SMTP server is configured): otherwise no item waits for one. */
    private readonly emailsSent = false,
  ) {
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    // Declared (with its index) before the first commit writes to it.
    if (emailsSent) store.collection(EMAIL_ITEMS_COLLECTION);
    this.consumer = new DurableBatchConsumer(nats, {
      stream: replicated(ALERT_NOTIFICATIONS_STREAM_SETTINGS, replicas),
      durable: NOTIFIER_CONSUMER,
      // Every notification ever decided is delivered, including those published before the first start.
      deliverFrom: 'all',
      maxBatch: MAX_BATCH,
      ackWaitMs: ACK_WAIT_MS,
      handle: (batch) => this.handle(batch),
    });
  }

  get counts(): { recorded: number; duplicates: number } {
    return { recorded: this.recorded, duplicates: this.duplicates };
  }

  start(): Promise<void> {
    return this.consumer.start();
  }

  stop(): Promise<void> {
    return this.consumer.stop();
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const fresh = new Map<string, { notification: AlertNotification; seq: number }>();
    for (const message of batch) {
      const notification = this.parse(message);
      if (notification !== null && !fresh.has(notification.id)) fresh.set(notification.id, { notification, seq: message.seq });
    }
    if (fresh.size === 0) return;
    const known = await this.deliveries.find({ _id: { $in: [...fresh.keys()] } }, { projection: { _id: 1 } });
    for (const doc of known) fresh.delete(doc._id);
    this.duplicates += batch.length - fresh.size;
    if (fresh.size === 0) return;
    const nowMs = this.now();
    const docs = [...fresh.values()].map(({ notification, seq }) => newDelivery(notification, seq, nowMs));
    const writes: DocumentWrite[] = docs.map((doc) => ({ collection: DELIVERIES_COLLECTION.name, upsert: doc }));
    if (this.emailsSent) {
      for (const { notification } of fresh.values()) {
        const { email } = notification;
        if (email !== null) writes.push({ collection: EMAIL_ITEMS_COLLECTION.name, upsert: newEmailItem({ ...notification, email }, nowMs) });
      }
    }
    // The delivery records and the e-mail items together, or neither: a redelivered batch finds them all known.
    await this.store.commit(writes);
    this.recorded += docs.length;
    for (const doc of docs) {
      const live: LiveNotification = { id: doc._id, kind: doc.kind, payload: doc.payload };
      this.nats.publish(NOTIFIER_SUBJECTS.live(doc.searchId), JSON.stringify(live));
      if (doc.status === 'pending') this.dispatcher.enqueue(doc);
    }
  }

  private parse(message: JsMsg): AlertNotification | null {
    let parsed: ReturnType<typeof alertNotificationSchema.safeParse>;
    try {
      parsed = alertNotificationSchema.safeParse(message.json());
    } catch {
      parsed = alertNotificationSchema.safeParse(undefined);
    }
    if (parsed.success) return parsed.data;
    this.logger.error(`notification #${message.seq} is not valid (${parsed.error.issues[0]?.message ?? 'unreadable'}); dropped`);
    return null;
  }
}
