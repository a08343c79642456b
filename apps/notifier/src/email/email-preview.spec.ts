import { matchIri, samplePropertyDocument, webhookPropertyDocument, type AlertNotification, type EmailPreviewRequest, type MatchPayload } from '@immo/contracts';
import { EmbeddedDocumentStore, type DocumentCollection } from '@immo/document-store';
import { DELIVERIES_COLLECTION, newDelivery, type DeliveryDoc } from '../deliveries/delivery-records';
import { EmailPreview, PREVIEW_NOTIFICATIONS, unsubscribeUrl } from './email-preview';
import { NBSP } from './french-format';

const ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const OTHER_ACCOUNT_ID = '7d1e2f3a-4b5c-4d6e-8f70-000000000099';
const SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000001';
const OTHER_SEARCH_ID = 'a1b2c3d4-1111-4aaa-8bbb-000000000002';

const REQUEST: EmailPreviewRequest = {
  accountId: ACCOUNT_ID,
  searchId: SEARCH_ID,
  searchTitle: 'Appartements Lyon 3e',
  searchToken: 'tok-123',
  publicBaseUrl: 'https://api.example.com',
};

let counter = 0;
/** A match notification about a property titled `title`, recorded `minute` minutes after 08:00. */
function aMatchNotification(title: string, minute: number, overrides: Partial<AlertNotification> = {}): AlertNotification {
  counter++;
  const suffix = String(counter).padStart(12, '0');
  const document = { ...samplePropertyDocument(`0b6f7a1e-3c2d-4e5f-8a9b-${suffix}`), title };
  const createdAt = new Date(Date.parse('2026-03-05T08:00:00Z') + minute * 60_000).toISOString();
  const payload: MatchPayload = {
    '@context': '/contexts/Match',
    '@id': matchIri(`5e0c2a8b-7d41-4f3e-9a6c-${suffix}`),
    '@type': 'Match',
    property: `/documents/properties/${document.uuid}`,
    search: `/searches/${SEARCH_ID}`,
    createdAt,
    updatedAt: createdAt,
    propertyDocument: webhookPropertyDocument(document, false),
  };
  return {
    id: `c0ffee00-0000-4000-8000-${suffix}`,
    searchId: SEARCH_ID,
    accountId: ACCOUNT_ID,
    kind: 'match',
    endpoint: null,
    propertyId: document.uuid,
    matchId: `5e0c2a8b-7d41-4f3e-9a6c-${suffix}`,
    payload: JSON.stringify(payload),
    createdAt,
    email: null,
    ...overrides,
  };
}

describe('EmailPreview', () => {
  let store: EmbeddedDocumentStore;
  let deliveries: DocumentCollection<DeliveryDoc>;
  let preview: EmailPreview;

  beforeEach(() => {
    store = new EmbeddedDocumentStore();
    deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    preview = new EmailPreview(store, () => Date.parse('2026-03-06T10:00:00Z'));
  });

  afterEach(async () => {
    await store.close();
  });

  const record = (...notifications: AlertNotification[]) => deliveries.bulkUpsert(notifications.map((notification, index) => newDelivery(notification, counter * 100 + index, 0)));

  it('renders an example from the sample property for a search without notifications yet', async () => {
    await record(aMatchNotification('Maison d’une autre recherche', 1, { searchId: OTHER_SEARCH_ID }));
    const email = await preview.render(REQUEST);
    expect(email.subject).toBe(`Exemple${NBSP}: 1${NBSP}nouveau bien pour «${NBSP}Appartements Lyon 3e${NBSP}»`);
    expect(email.html).toContain('Exemple');
    expect(email.html).toContain('Appartement 3 pièces 64 m²');
    expect(email.html).not.toContain('Maison d’une autre recherche');
  });

  it(`renders the search's ${PREVIEW_NOTIFICATIONS} newest notifications, whatever their status`, async () => {
    const notifications = Array.from({ length: PREVIEW_NOTIFICATIONS + 2 }, (_, minute) => aMatchNotification(`Bien numéro ${String(minute).padStart(2, '0')}`, minute));
    await record(...notifications);
    const failed = await deliveries.findById(notifications[PREVIEW_NOTIFICATIONS + 1]!.id);
    await deliveries.upsert({ ...failed!, revision: failed!.revision + 1, status: 'failed' });
    const email = await preview.render(REQUEST);
    expect(email.subject).toBe(`${PREVIEW_NOTIFICATIONS}${NBSP}nouveaux biens pour «${NBSP}Appartements Lyon 3e${NBSP}»`);
    expect(email.text).toContain('Bien numéro 11');
    expect(email.text).toContain('Bien numéro 02');
    expect(email.text).not.toContain('Bien numéro 01');
    expect(email.text).not.toContain('Bien numéro 00');
    expect(email.text).not.toContain('Exemple');
  });

  it('falls back to the example when no recorded payload can be read', async () => {
    await record(aMatchNotification('Illisible', 1, { payload: '{"@type": "Match"' }));
    const email = await preview.render(REQUEST);
    expect(email.subject).toMatch(/^Exemple/);
    expect(email.text).toContain('Appartement 3 pièces 64 m²');
  });

  it("leaves out records of another account, should one carry the search's id", async () => {
    await record(aMatchNotification('Bien d’un autre compte', 1, { accountId: OTHER_ACCOUNT_ID }), aMatchNotification('Bien du compte', 2));
    const email = await preview.render(REQUEST);
    expect(email.text).toContain('Bien du compte');
    expect(email.text).not.toContain('Bien d’un autre compte');
  });

  it('links to the unsubscribe page of the search on the public origin, in both parts', async () => {
    const email = await preview.render(REQUEST);
    expect(email.text).toContain('https://api.example.com/public/search/disable-notifications?searchToken=tok-123');
    expect(email.html).toContain('href="https://api.example.com/public/search/disable-notifications?searchToken=tok-123"');
  });

  it('encodes the token in the unsubscribe URL and keeps a path prefix of the base', () => {
    expect(unsubscribeUrl('https://api.example.com/', 'a b&c')).toBe('https://api.example.com/public/search/disable-notifications?searchToken=a+b%26c');
    expect(unsubscribeUrl('https://example.com/immo/', 'tok')).toBe('https://example.com/immo/public/search/disable-notifications?searchToken=tok');
    expect(unsubscribeUrl('http://127.0.0.1:8080', null)).toBe('http://127.0.0.1:8080/public/search/disable-notifications');
  });
});
