import { randomUUID } from 'node:crypto';
import {
  newApiKey,
  rpcErrors,
  type AccountSummary,
  type AccountsPage,
  type CreatedAccount,
  type IssuedKey,
  type KeyHolder,
} from '@immo/contracts';
import type { EventStore } from '@immo/event-store';
import { CommandRejected } from '../command-rejected';
import type { AccountDoc } from '../projection/read-models';
import type { SearchesProjection } from '../projection/searches-projection';
import { accountStream, evolveAccount, type AccountEvent, type AccountState } from './account-events';

export const ACCOUNTS_PER_PAGE = 30;
/** A command answers once its events are in the read models, so the caller reads what it wrote. */
export const READ_YOUR_WRITES_MS = 5000;

const summaryOf = (doc: AccountDoc): AccountSummary => ({
  id: doc._id,
  name: doc.name,
  createdAt: doc.createdAt,
  keys: doc.keys.map(({ keyId, createdAt, revokedAt }) => ({ keyId, createdAt, revokedAt })),
});

/** Accounts and their API keys (admin operations), and key lookups for the gateway. */
export class AccountsService {
  constructor(
    private readonly eventStore: EventStore,
    private readonly projection: SearchesProjection,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async create(name: string, imported?: { keyId: string; digest: string }): Promise<CreatedAccount> {
    const accountId = randomUUID();
    const createdAt = this.now().toISOString();
    const key = imported ? { ...imported, apiKey: '' } : newApiKey();
    await this.append(accountId, 'no_stream', [
      { type: 'AccountCreated', data: { accountId, name, createdAt } },
      { type: 'ApiKeyIssued', data: { accountId, keyId: key.keyId, digest: key.digest, createdAt } },
    ]);
    return { id: accountId, name, createdAt, keyId: key.keyId, apiKey: key.apiKey };
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
