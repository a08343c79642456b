/**
 * Each account's webhook signing secret (Standard Webhooks `whsec_…`), made on first use. A
 * rotation makes a new one; the previous one keeps signing beside it for an overlap (24 h by
 * default), so receivers can switch without losing a delivery. The notifier signs, so it must be
 * able to read the secrets; they are stored sealed (see SecretBox), each bound to its account, and
 * held in plain text only in this process's memory.
 */
import type { WebhookSecretsRekeyed } from '@immo/contracts';
import { CommitConflictError, type DocumentCollection, type DocumentStore, type StoredDocument } from '@immo/document-store';
import { KeyedSerializer } from '@immo/service-kit';
import { generateWebhookSecret } from '../delivery/webhook-signer';
import { SecretBox, SecretBoxError } from './secret-box';

/** A stored record. */
export interface WebhookSecretDoc extends StoredDocument {
  /** Sealed; the plain `whsec_…` in a record written before secrets were sealed. */
  current: string;
  /** When the current secret was made. */
  createdAt: string;
  /** Sealed like `current`. */
  previous: string | null;
  /** Until when `previous` still signs. */
  previousUntilMs: number | null;
  /** The key `current` and `previous` are sealed under; absent in a plain record. */
  keyId?: string;
}

/** A record opened: what signing needs, in plain text. */
interface OpenedSecrets {
  current: string;
  createdAt: string;
  previous: string | null;
  previousUntilMs: number | null;
}

export const WEBHOOK_SECRETS_COLLECTION = { name: 'notifier_webhook_secrets', indexes: [] };

/** A cached secret is read again after this long (a rotation made by another replica). */
const CACHE_MS = 10_000;
/** Writes that lose to another replica's are made again on what it stored, this many times at most. */
const WRITE_ATTEMPTS = 5;
const REKEY_BATCH = 100;

export class WebhookSecrets {
  private readonly secrets: DocumentCollection<WebhookSecretDoc>;
  private readonly serial = new KeyedSerializer();
  private readonly cache = new Map<string, { opened: OpenedSecrets; readAtMs: number }>();

  constructor(
    private readonly store: DocumentStore,
    private readonly box: SecretBox,
    private readonly overlapMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.secrets = store.collection<WebhookSecretDoc>(WEBHOOK_SECRETS_COLLECTION);
  }

  /** The account's current secret, made now if it has none. */
  async current(accountId: string): Promise<string> {
    return (await this.openedOf(accountId)).current;
  }

  /** The secrets a delivery is signed with now: the current one, and the previous one during the overlap. */
  async signing(accountId: string): Promise<string[]> {
    const opened = await this.openedOf(accountId);
    const live = opened.previous !== null && opened.previousUntilMs !== null && opened.previousUntilMs > this.now();
    return live ? [opened.current, opened.previous as string] : [opened.current];
  }

  async rotate(accountId: string): Promise<string> {
    return this.serial.run(accountId, async () => {
      let stored = await this.secrets.findById(accountId);
      const replaced = stored === null ? null : this.opened(stored).current;
      for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
        const nowMs = this.now();
        const rotated: OpenedSecrets = {
          current: generateWebhookSecret(),
          createdAt: new Date(nowMs).toISOString(),
          previous: replaced,
          previousUntilMs: replaced === null ? null : nowMs + this.overlapMs,
        };
        if (await this.storeOver(stored, accountId, rotated)) return rotated.current;
        stored = (await this.secrets.findById(accountId)) as WebhookSecretDoc;
        const theirs = this.opened(stored);
        // Another replica rotated it at the same instant: its secret stands, and is the one answered.
        if (theirs.current !== replaced) {
          this.cache.set(accountId, { opened: theirs, readAtMs: this.now() });
          return theirs.current;
        }
        // Sealed again meanwhile (a rekey), its secrets unchanged: the rotation is made over it.
      }
      throw new Error(`the webhook secret of account ${accountId} kept changing while it was rotated`);
    });
  }

  /**
   * Seals every record that is not under the current key (plain ones included) under it, for a
   * key rotation: once done, the older keys can be dropped from SECRETS_KEY. The secrets
   * themselves do not change. Safe beside other replicas: a record written meanwhile is read again.
   */
  async rekey(): Promise<WebhookSecretsRekeyed> {
    const outcome: WebhookSecretsRekeyed = { keyId: this.box.currentKeyId, reencrypted: 0, unreadable: [] };
    for await (const batch of this.secrets.scan(REKEY_BATCH)) {
      for (const doc of batch) {
        if (this.underCurrentKey(doc)) continue;
        try {
          if (await this.serial.run(doc._id, () => this.reseal(doc._id))) outcome.reencrypted++;
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          outcome.unreadable.push(doc._id);
        }
      }
    }
    return outcome;
  }

  /** Seals a record under the current key, unless it is under it already (false). */
  private async reseal(accountId: string): Promise<boolean> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      // Read again each time: another replica may have rotated or sealed it since.
      const stored = await this.secrets.findById(accountId);
      if (stored === null || this.underCurrentKey(stored)) return false;
      if (await this.storeOver(stored, accountId, this.opened(stored))) return true;
    }
    throw new Error(`the webhook secret of account ${accountId} kept changing while it was re-encrypted`);
  }

  private async openedOf(accountId: string): Promise<OpenedSecrets> {
    const cached = this.cache.get(accountId);
    if (cached && this.now() - cached.readAtMs < CACHE_MS) return cached.opened;
    return this.serial.run(accountId, async () => {
      let doc = await this.secrets.findById(accountId);
      if (doc === null) {
        const made: OpenedSecrets = { current: generateWebhookSecret(), createdAt: new Date(this.now()).toISOString(), previous: null, previousUntilMs: null };
        doc = this.sealed(accountId, made, 1);
        // Another replica may have made one meanwhile: the stored one wins, whichever it is.
        if ((await this.secrets.upsert(doc)) === 'stale') doc = (await this.secrets.findById(accountId)) as WebhookSecretDoc;
      }
      const opened = this.opened(doc);
      this.cache.set(accountId, { opened, readAtMs: this.now() });
      return opened;
    });
  }

  /**
   * Stores `opened`, sealed under the current key, in place of `stored` (null: no record) and
   * only of it: false, and nothing written, when another replica wrote the record since.
   */
  private async storeOver(stored: WebhookSecretDoc | null, accountId: string, opened: OpenedSecrets): Promise<boolean> {
    try {
      await this.store.commit([{ collection: WEBHOOK_SECRETS_COLLECTION.name, upsert: this.sealed(accountId, opened, (stored?.revision ?? 0) + 1) }], {
        expect: [{ collection: WEBHOOK_SECRETS_COLLECTION.name, id: accountId, revision: stored?.revision ?? null }],
      });
    } catch (error) {
      if (error instanceof CommitConflictError) return false;
      throw error;
    }
    this.cache.set(accountId, { opened, readAtMs: this.now() });
    return true;
  }

  private underCurrentKey(doc: WebhookSecretDoc): boolean {
    return doc.keyId === this.box.currentKeyId;
  }

  private sealed(accountId: string, opened: OpenedSecrets, revision: number): WebhookSecretDoc {
    return {
      _id: accountId,
      revision,
      current: this.box.seal(opened.current, accountId),
      createdAt: opened.createdAt,
      previous: opened.previous === null ? null : this.box.seal(opened.previous, accountId),
      previousUntilMs: opened.previousUntilMs,
      keyId: this.box.currentKeyId,
    };
  }

  private opened(doc: WebhookSecretDoc): OpenedSecrets {
    // A record written before secrets were sealed holds them plain: read as they are, sealed at the next write.
    const open = (value: string) => (SecretBox.isSealed(value) ? this.box.open(value, doc._id) : value);
    return { current: open(doc.current), createdAt: doc.createdAt, previous: doc.previous === null ? null : open(doc.previous), previousUntilMs: doc.previousUntilMs };
  }
}
