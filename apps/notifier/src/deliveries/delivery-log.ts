/**
 * The delivery log a search's owner reads (`GET /searches/{id}/deliveries[/{deliveryId}]`), the
 * retry by hand, and the recent notifications the live stream resumes from. The gateway has
 * already checked that the search is the caller's.
 */
import type { DeliveriesPage, DeliveryView, LiveNotification } from '@immo/contracts';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import type { DeliveryDispatcher } from './delivery-dispatcher';
import { DELIVERIES_COLLECTION, deliveryView, type DeliveryDoc } from './delivery-records';

export class DeliveryLog {
  private readonly deliveries: DocumentCollection<DeliveryDoc>;

  constructor(
    store: DocumentStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly now: () => number = Date.now,
  ) {
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  async page(searchId: string, page: number, itemsPerPage: number): Promise<DeliveriesPage> {
    const [docs, totalItems] = await Promise.all([
      // Webhook deliveries only: the stream-only notifications are no delivery to log.
      this.deliveries.find({ searchId, status: { $ne: 'streamed' } }, { sort: { createdAt: -1, streamSeq: -1 }, skip: (page - 1) * itemsPerPage, limit: itemsPerPage }),
      this.deliveries.count({ searchId, status: { $ne: 'streamed' } }),
    ]);
    return { items: docs.map(deliveryView), totalItems, page, itemsPerPage };
  }

  async one(searchId: string, deliveryId: string): Promise<DeliveryView | null> {
    const doc = await this.deliveries.findById(deliveryId.toLowerCase());
    return doc !== null && doc.searchId === searchId ? deliveryView(doc) : null;
  }

  /** Sends it again now, with the same `webhook-id`, whatever its status; its attempts so far stay in its history. */
  async retry(searchId: string, deliveryId: string): Promise<DeliveryView | null> {
    const doc = await this.deliveries.findById(deliveryId.toLowerCase());
    if (doc === null || doc.searchId !== searchId || doc.endpoint === null) return null;
    const again: DeliveryDoc = { ...doc, revision: doc.revision + 1, status: 'pending', nextAttemptAtMs: this.now(), failure: null };
    await this.deliveries.upsert(again);
    this.dispatcher.enqueue(again);
    return deliveryView(again);
  }

  /** A search's notifications recorded after `afterId` (all recent ones when null), oldest first. */
  async after(searchId: string, afterId: string | null, limit: number): Promise<LiveNotification[]> {
    let fromSeq = 0;
    if (afterId !== null) {
      const anchor = await this.deliveries.findById(afterId.toLowerCase());
      // An unknown id (or another search's) resumes nothing rather than everything.
      if (anchor === null || anchor.searchId !== searchId) return [];
      fromSeq = anchor.streamSeq;
    }
    const docs = await this.deliveries.find({ searchId, streamSeq: { $gt: fromSeq } }, { sort: { streamSeq: afterId === null ? -1 : 1 }, limit });
    if (afterId === null) docs.reverse();
    return docs.map((doc) => ({ id: doc._id, kind: doc.kind, payload: doc.payload }));
  }
}
