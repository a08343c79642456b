/**
 * `GET /searches/{id}/email-preview`: the alert e-mail a search would get next, rendered from its
 * newest notifications in the delivery log (whatever their webhook status: the e-mail does not
 * depend on it), or, for a search that has had none yet (or none that can be read), from the
 * sample property, saying that it is an example. The gateway has already checked that the search is the caller's.
 */
import { parisTimestamp, type AlertEmailView, type EmailPreviewRequest } from '@immo/contracts';
import type { DocumentCollection, DocumentStore } from '@immo/document-store';
import { DELIVERIES_COLLECTION, type DeliveryDoc } from '../deliveries/delivery-records';
import { sampleNotification } from '../tester/webhook-tester';
import { SAMPLE_PROPERTY } from '../tester/sample-property';
import { EmptyAlertEmailError, renderAlertEmail, type AlertEmailItem } from './alert-email';

/** About what one e-mail batch holds: enough to show every kind of block. */
export const PREVIEW_NOTIFICATIONS = 10;

/** `<publicBaseUrl>/public/search/disable-notifications?searchToken=…`: a base behind a path prefix keeps it. */
export function unsubscribeUrl(publicBaseUrl: string, searchToken: string | null): string {
  const url = new URL(`${publicBaseUrl.replace(/\/+$/, '')}/public/search/disable-notifications`);
  if (searchToken !== null) url.searchParams.set('searchToken', searchToken);
  return url.href;
}

export class EmailPreview {
  private readonly deliveries: DocumentCollection<DeliveryDoc>;

  constructor(
    store: DocumentStore,
    private readonly now: () => number = Date.now,
  ) {
    this.deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  }

  async render(request: EmailPreviewRequest): Promise<AlertEmailView> {
    const searchId = request.searchId.toLowerCase();
    const newest = await this.deliveries.find({ searchId }, { sort: { createdAt: -1, streamSeq: -1 }, limit: PREVIEW_NOTIFICATIONS });
    // A search's records are its account's; checked again so that a mix-up upstream shows nothing.
    const own = newest.filter((doc) => doc.accountId.toLowerCase() === request.accountId.toLowerCase());
    const input = { searchTitle: request.searchTitle, unsubscribeUrl: unsubscribeUrl(request.publicBaseUrl, request.searchToken) };
    try {
      return renderAlertEmail({ ...input, items: own.map((doc) => ({ kind: doc.kind, payload: doc.payload, createdAt: doc.createdAt })) });
    } catch (error) {
      // No notification yet (or none readable): no e-mail would go out, so show what one looks like.
      if (!(error instanceof EmptyAlertEmailError)) throw error;
      return renderAlertEmail({ ...input, items: [this.sampleItem()], example: true });
    }
  }

  private sampleItem(): AlertEmailItem {
    const createdAt = parisTimestamp(this.now());
    return { kind: 'match', payload: JSON.stringify(sampleNotification(SAMPLE_PROPERTY, undefined, createdAt)), createdAt };
  }
}
