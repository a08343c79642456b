import { accountStream, evolveAccount, isAccountEvent, type AccountEvent, type AccountState } from './account-events';

const created: AccountEvent = { type: 'AccountCreated', data: { accountId: 'acc-1', name: 'Agence', createdAt: '2024-01-01T00:00:00.000Z' } };
const issued = (keyId: string, digest: string, createdAt = '2024-01-02T00:00:00.000Z'): AccountEvent => ({
  type: 'ApiKeyIssued',
  data: { accountId: 'acc-1', keyId, digest, createdAt },
});
const revoked = (keyId: string, revokedAt: string): AccountEvent => ({ type: 'ApiKeyRevoked', data: { accountId: 'acc-1', keyId, revokedAt } });

const fold = (events: AccountEvent[], from: AccountState | null = null) => events.reduce(evolveAccount, from);

describe('evolveAccount', () => {
  it('creates the account with no keys', () => {
    expect(fold([created])).toEqual({ id: 'acc-1', name: 'Agence', createdAt: '2024-01-01T00:00:00.000Z', keys: [] });
  });

  it('adds issued keys in order, not revoked', () => {
    expect(fold([created, issued('aaaaaaaaaaaa', 'digest-a'), issued('bbbbbbbbbbbb', 'digest-b', '2024-01-03T00:00:00.000Z')])?.keys).toEqual([
      { keyId: 'aaaaaaaaaaaa', digest: 'digest-a', createdAt: '2024-01-02T00:00:00.000Z', revokedAt: null },
      { keyId: 'bbbbbbbbbbbb', digest: 'digest-b', createdAt: '2024-01-03T00:00:00.000Z', revokedAt: null },
    ]);
  });

  it('ignores a second issue of the same key id', () => {
    const state = fold([created, issued('aaaaaaaaaaaa', 'digest-a'), issued('aaaaaaaaaaaa', 'digest-other', '2024-02-01T00:00:00.000Z')]);
    expect(state?.keys).toEqual([{ keyId: 'aaaaaaaaaaaa', digest: 'digest-a', createdAt: '2024-01-02T00:00:00.000Z', revokedAt: null }]);
  });

  it('revokes only the named key', () => {
    const state = fold([created, issued('aaaaaaaaaaaa', 'digest-a'), issued('bbbbbbbbbbbb', 'digest-b'), revoked('aaaaaaaaaaaa', '2024-03-01T00:00:00.000Z')]);
    expect(state?.keys.map((key) => [key.keyId, key.revokedAt])).toEqual([
      ['aaaaaaaaaaaa', '2024-03-01T00:00:00.000Z'],
      ['bbbbbbbbbbbb', null],
    ]);
  });

  it('keeps the first revocation time when a key is revoked again', () => {
    const state = fold([created, issued('aaaaaaaaaaaa', 'digest-a'), revoked('aaaaaaaaaaaa', '2024-03-01T00:00:00.000Z'), revoked('aaaaaaaaaaaa', '2024-04-01T00:00:00.000Z')]);
    expect(state?.keys[0]?.revokedAt).toBe('2024-03-01T00:00:00.000Z');
  });

  it('leaves the keys unchanged when an unknown key is revoked', () => {
    const before = fold([created, issued('aaaaaaaaaaaa', 'digest-a')]);
    expect(evolveAccount(before, revoked('cccccccccccc', '2024-03-01T00:00:00.000Z'))).toEqual(before);
  });

  it('does not change the state it is given', () => {
    const before = fold([created, issued('aaaaaaaaaaaa', 'digest-a')]);
    const snapshot = structuredClone(before);
    fold([issued('bbbbbbbbbbbb', 'digest-b'), revoked('aaaaaaaaaaaa', '2024-03-01T00:00:00.000Z')], before);
    expect(before).toEqual(snapshot);
  });

  it.each([issued('aaaaaaaaaaaa', 'digest-a'), revoked('aaaaaaaaaaaa', '2024-03-01T00:00:00.000Z')])('leaves no account for $type before creation', (event) => {
    expect(evolveAccount(null, event)).toBeNull();
  });
});

describe('account events', () => {
  it('names the stream after the account', () => {
    expect(accountStream('acc-1')).toBe('account-acc-1');
  });

  it.each(['AccountCreated', 'ApiKeyIssued', 'ApiKeyRevoked'])('recognises %s', (type) => {
    expect(isAccountEvent(type)).toBe(true);
  });

  it.each(['SearchCreated', 'accountcreated', ''])('does not recognise %j', (type) => {
    expect(isAccountEvent(type)).toBe(false);
  });
});
