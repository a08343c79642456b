import { randomUUID } from 'node:crypto';
import {
  newApiKey,
  parisTimestamp,
  parisTimestampOrNull,
  rpcErrors,
  type AccountSummary,
  type AccountsPage,
  type CreatedAccount,
  type IssuedKey,
  type IssuedKeyIdsPage,
  type KeyHolder,
} from '@immo/contracts';
import type { EventStore } from '@immo/event-store';
import { CommandRejected } from '../command-rejected';
import type { AccountDoc } from '../projection/read-models';
import type { SearchesProjection } from '../projection/searches-projection';
import { accountStream, evolveAccount, type AccountEvent, type AccountState } from './account-events';

export const ACCOUNTS_PER_PAGE = 30;
/** Key ids per page of `issuedKeyIds`: about 300 KB of JSON, well inside a NATS message. */
export const ISSUED_KEY_IDS_PER_PAGE = 20_000;
/** A command answers once its events are in the read models, so the caller reads what it wrote. */
export const READ_YOUR_WRITES_MS = 5000;

/** An account as the admin API shows it, times in Paris time. */
const summaryOf = (doc: AccountDoc): AccountSummary => ({
  id: doc._id,
  name: doc.name,
  createdAt: parisTimestamp(doc.createdAt),
  keys: doc.keys.map(({ keyId, createdAt, revokedAt }) => ({ keyId, createdAt: parisTimestamp(createdAt), revokedAt: parisTimestampOrNull(revokedAt) })),
});

export interface AccountsServiceOptions {
  now?: () => Date;
  /**
   * Resolves once gateways have been sent the broadcasts of what was just committed (see
   * `KeyAnnouncements.delivered`): a new key is answered only then.
   */
  announced?: () => Promise<void>;
}

/** Accounts and their API keys (admin operations), and key lookups for the gateway. */
export class AccountsService {
  private readonly now: () => Date;
  private readonly announced: () => Promise<void>;

  constructor(
    private readonly eventStore: EventStore,
    private readonly projection: SearchesProjection,
    options: AccountsServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.announced = options.announced ?? (() => Promise.resolve());
  }

  async create(name: string, imported?: { keyId: string; digest: string }): Promise<CreatedAccount> {
    const accountId = randomUUID();
    const createdAt = this.now().toISOString();
    const key = imported ? { ...imported, apiKey: '' } : newApiKey();
    await this.append(accountId, 'no_stream', [
      { type: 'AccountCreated', data: { accountId, name, createdAt } },
      { type: 'ApiKeyIssued', data: { accountId, keyId: key.keyId, digest: key.digest, createdAt } },
    ]);
    await this.announced();
    return { id: accountId, name, createdAt: parisTimestamp(createdAt), keyId: key.keyId, apiKey: key.apiKey };
  }

  async list(page: number): Promise<AccountsPage> {
    const [items, totalItems] = await Promise.all([
      this.projection.accounts.find({}, { sort: { createdAt: 1, _id: 1 }, skip: (page - 1) * ACCOUNTS_PER_PAGE, limit: ACCOUNTS_PER_PAGE }),
      this.projection.accounts.count({}),
    ]);
    return { items: items.map(summaryOf), totalItems };
  }

  /** A new key beside the current ones (rotation: both work until the old one is revoked). */
  async issueKey(accountId: string): Promise<IssuedKey> {
    const { revision } = await this.existing(accountId);
    const key = newApiKey();
    await this.append(accountId, revision, [{ type: 'ApiKeyIssued', data: { accountId, keyId: key.keyId, digest: key.digest, createdAt: this.now().toISOString() } }]);
    await this.announced();
    return { keyId: key.keyId, apiKey: key.apiKey };
  }

  /** Revoking a revoked key again changes nothing and succeeds. */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    const { state, revision } = await this.existing(accountId);
    const key = state.keys.find((candidate) => candidate.keyId === keyId);
    if (!key) throw new CommandRejected(rpcErrors.notFound(`Account ${accountId} has no key ${keyId}.`));
    if (key.revokedAt !== null) return;
    await this.append(accountId, revision, [{ type: 'ApiKeyRevoked', data: { accountId, keyId, revokedAt: this.now().toISOString() } }]);
  }

  /** A live key's holder and digest; revoked and unknown keys are not found. */
  async keyHolder(keyId: string): Promise<KeyHolder | null> {
    const key = await this.projection.keys.findById(keyId);
    if (!key || key.revokedAt !== null) return null;
    return { keyId, accountId: key.accountId, digest: key.digest };
  }

  /** Ids of keys ever issued (revoked ones too), in ascending order, a page at a time. */
  async issuedKeyIds(after: string | null, perPage = ISSUED_KEY_IDS_PER_PAGE): Promise<IssuedKeyIdsPage> {
    const keys = await this.projection.keys.find(after === null ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: perPage, projection: { _id: 1 } });
    const keyIds = keys.map((key) => key._id);
    return { keyIds, next: keyIds.length === perPage ? (keyIds[keyIds.length - 1] as string) : null };
  }

  async knowsKey(keyId: string): Promise<boolean> {
    return (await this.projection.keys.findById(keyId)) !== null;
  }

  private async existing(accountId: string): Promise<{ state: AccountState; revision: number }> {
    const events = await this.eventStore.readStream(accountStream(accountId));
    let state: AccountState | null = null;
    for (const event of events) state = evolveAccount(state, event as unknown as AccountEvent);
    if (!state) throw new CommandRejected(rpcErrors.notFound(`Account ${accountId} was not found.`));
    return { state, revision: events.length - 1 };
  }

  private async append(accountId: string, expectedRevision: number | 'no_stream', events: AccountEvent[]): Promise<void> {
    const result = await this.eventStore.append(
      accountStream(accountId),
      events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })),
      { expectedRevision },
    );
    await this.projection.waitFor(result.position, READ_YOUR_WRITES_MS);
  }
}
