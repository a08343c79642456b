import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AlertNotification, NotificationState } from '@immo/contracts';
import { EmbeddedDocumentStore, type DocumentCollection } from '@immo/document-store';
import { PrivateTargetsAllowed } from '@immo/service-kit';
import { startWebhookReceiver, type WebhookReceiver } from '@immo/testing';
import { EndpointBreakers } from '../delivery/endpoint-breakers';
import { GuardedHttpsClient } from '../delivery/guarded-https-client';
import { SecretBox } from '../secrets/secret-box';
import { WebhookSecrets } from '../secrets/webhook-secrets';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DELIVERIES_COLLECTION, newDelivery, type DeliveryDoc } from './delivery-records';
import type { SearchStates } from './search-states';

const SEARCH_ID = '6a1f0c2e-0000-4000-8000-000000000001';
const ACCOUNT_ID = '6a1f0c2e-0000-4000-8000-000000000002';
const HANGING = 40;
const HEALTHY = 40;

describe('DeliveryDispatcher with a hanging endpoint and a healthy one (real HTTPS on 127.0.0.1)', () => {
  let certDir: string;
  let healthy: WebhookReceiver;
  let hanging: WebhookReceiver;
  let store: EmbeddedDocumentStore;
  let dispatcher: DeliveryDispatcher;
  let deliveries: DocumentCollection<DeliveryDoc>;

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'hanging-endpoint-'));
    healthy = await startWebhookReceiver(certDir);
    hanging = await startWebhookReceiver(certDir, healthy);
    hanging.answer('/', 'hang');
  });

  afterAll(async () => {
    await dispatcher?.stop();
    await healthy.close();
    await hanging.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('delivers to the healthy endpoint while every request to the hanging one is still open', async () => {
    store = new EmbeddedDocumentStore();
    deliveries = store.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
    const client = new GuardedHttpsClient({ allowed: new PrivateTargetsAllowed('127.0.0.1/32'), timeoutMs: 20_000, ca: healthy.tls.cert });
    const endpoints = { hanging: hanging.url('/hook'), healthy: healthy.url('/hook') };
    // The search wants both endpoints' notifications (matches to one, events to the other).
    const searchStates = {
      of: async (): Promise<NotificationState> => ({ searchId: SEARCH_ID, active: true, endpointRecipient: endpoints.hanging, eventEndpoint: endpoints.healthy, notificationRecipient: null }),
      forget: () => undefined,
    } as unknown as SearchStates;
    dispatcher = new DeliveryDispatcher(
      store,
      client,
      new EndpointBreakers({}),
      new WebhookSecrets(store, new SecretBox([{ id: 'test', key: randomBytes(32) }]), 60_000),
      searchStates,
      { maxRetries: 5, retryIntervalMs: 3_600_000, concurrency: 64, claimMs: 60_000 },
      { endpointGone: () => undefined },
    );
    const notification = (i: number, kind: AlertNotification['kind'], endpoint: string): AlertNotification => ({
      id: `6a1f0c2e-0000-4000-8001-${String(i).padStart(12, '0')}`,
      searchId: SEARCH_ID,
      accountId: ACCOUNT_ID,
      kind,
      endpoint,
      // One property each: deliveries about one property to one endpoint go one after another.
      propertyId: `6a1f0c2e-0000-4000-8002-${String(i).padStart(12, '0')}`,
      matchId: SEARCH_ID,
      payload: JSON.stringify({ i }),
      createdAt: new Date().toISOString(),
      email: null,
    });
    // The hanging endpoint's deliveries first: they would hold every slot of a plain queue.
    const docs = [
      ...Array.from({ length: HANGING }, (_, i) => newDelivery(notification(i, 'match', endpoints.hanging), i, Date.now())),
      ...Array.from({ length: HEALTHY }, (_, i) => newDelivery(notification(HANGING + i, 'ad.update.price', endpoints.healthy), HANGING + i, Date.now())),
    ];
    await deliveries.bulkUpsert(docs);
    dispatcher.start();
    for (const doc of docs) dispatcher.enqueue(doc);

    const deadline = Date.now() + 10_000;
    while (healthy.received.length < HEALTHY && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(healthy.received).toHaveLength(HEALTHY);
    // None of the hanging endpoint's requests has ended, and it never held more than its share.
    expect(hanging.received.length).toBeGreaterThan(0);
    expect(hanging.received.length).toBeLessThanOrEqual(32);
    const stored = await deliveries.find({ endpoint: endpoints.hanging });
    expect(stored.every((doc) => doc.status === 'pending' && doc.attempts.length === 0)).toBe(true);
    // The receiver has seen the last request; its outcome is recorded a moment later.
    let delivered = await deliveries.find({ endpoint: endpoints.healthy, status: 'delivered' });
    while (delivered.length < HEALTHY && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      delivered = await deliveries.find({ endpoint: endpoints.healthy, status: 'delivered' });
    }
    expect(delivered).toHaveLength(HEALTHY);
    // And still, none of the hanging endpoint's requests has come back.
    expect((await deliveries.find({ endpoint: endpoints.hanging })).every((doc) => doc.status === 'pending')).toBe(true);
  }, 30_000);
});
