/**
 * Each account's webhook signing secret (Standard Webhooks `whsec_…`), made on first use. A
 * rotation makes a new one; the previous one keeps signing beside it for an overlap (24 h by
 * default), so receivers can switch without losing a delivery. The notifier signs, so it keeps
 * the secrets; they must be readable to sign, hence stored as they are, in the notifier's store only.
 */
import type { DocumentCollection, DocumentStore, StoredDocument } from '@immo/document-store';
import { KeyedSerializer } from '@immo/service-kit';
import { generateWebhookSecret } from '../delivery/webhook-signer';

export interface WebhookSecretDoc extends StoredDocument {
  current: string;
  createdAt: string;
  previous: string | null;
  /** Until when `previous` still signs. */
  previousUntilMs: number | null;
}

export const WEBHOOK_SECRETS_COLLECTION = { name: 'notifier_webhook_secrets', indexes: [] };

/** A cached secret is read again after this long (a rotation made by another replica). */
const CACHE_MS = 10_000;

export class WebhookSecrets {
  private readonly secrets: DocumentCollection<WebhookSecretDoc>;
  private readonly serial = new KeyedSerializer();
  private readonly cache = new Map<string, { doc: WebhookSecretDoc; readAtMs: number }>();

  constructor(
    store: DocumentStore,
    private readonly overlapMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.secrets = store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION);
  }

  /** The account's current secret, made now if it has none. */
  async current(accountId: string): Promise<string> {
    return (await this.docOf(accountId)).current;
  }

  /** The secrets a delivery is signed with now: the current one, and the previous one during the overlap. */
  async signing(accountId: string): Promise<string[]> {
    const doc = await this.docOf(accountId);
    const live = doc.previous !== null && doc.previousUntilMs !== null && doc.previousUntilMs > this.now();
    return live ? [doc.current, doc.previous as string] : [doc.current];
  }

  async rotate(accountId: string): Promise<string> {
    return this.serial.run(accountId, async () => {
      const before = await this.secrets.findById(accountId);
      const nowMs = this.now();
      const doc: WebhookSecretDoc = {
        _id: accountId,
        revision: (before?.revision ?? 0) + 1,
        current: generateWebhookSecret(),
        createdAt: new Date(nowMs).toISOString(),
        previous: before?.current ?? null,
        previousUntilMs: before ? nowMs + this.overlapMs : null,
      };
      // Another replica rotating at the same instant wins with the same revision: answer what is stored.
      const stored = (await this.secrets.upsert(doc)) === 'stale' ? ((await this.secrets.findById(accountId)) as WebhookSecretDoc) : doc;
      this.cache.set(accountId, { doc: stored, readAtMs: nowMs });
      return stored.current;
    });
  }

  private async docOf(accountId: string): Promise<WebhookSecretDoc> {
    const cached = this.cache.get(accountId);
    if (cached && this.now() - cached.readAtMs < CACHE_MS) return cached.doc;
    return this.serial.run(accountId, async () => {
      let doc = await this.secrets.findById(accountId);
      if (doc === null) {
        doc = { _id: accountId, revision: 1, current: generateWebhookSecret(), createdAt: new Date(this.now()).toISOString(), previous: null, previousUntilMs: null };
        // Another replica may have made one meanwhile: the stored one wins, whichever it is.
        if ((await this.secrets.upsert(doc)) === 'stale') doc = (await this.secrets.findById(accountId)) as WebhookSecretDoc;
      }
      this.cache.set(accountId, { doc, readAtMs: this.now() });
      return doc;
    });
  }
}
