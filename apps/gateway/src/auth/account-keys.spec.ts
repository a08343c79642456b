import type { NatsConnection } from 'nats';
import { newApiKey, type KeyHolder } from '@immo/contracts';
import { RpcCallError, type NatsRpcClient } from '@immo/service-kit';
import { AccountKeys } from './account-keys';

/** A NATS connection whose broadcasts never come: revocations are told to `forget` by hand. */
const nothing = (): AsyncIterable<never> => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true as const, value: undefined as never }) }) });
const quietNats = { subscribe: nothing, status: nothing } as unknown as NatsConnection;

const notFound = () => new RpcCallError('remote', 'searches.query.key-by-id.v1', 'unknown key', { status: 404, title: 'Not Found', detail: 'unknown key' } as never);

describe('AccountKeys', () => {
  it('does not trust a lookup that was under way when the key was revoked: the key is looked up again and refused', async () => {
    const key = newApiKey();
    const holder: KeyHolder = { keyId: key.keyId, accountId: 'a1b2c3d4-0000-4000-8000-000000000001', digest: key.digest };
    let answerFirst: (value: KeyHolder) => void = () => undefined;
    const request = jest
      .fn()
      .mockImplementationOnce(() => new Promise<KeyHolder>((resolve) => (answerFirst = resolve)))
      .mockImplementation(async () => {
        throw notFound();
      });
    const keys = new AccountKeys({ request } as unknown as NatsRpcClient, quietNats);
    const checking = keys.holderOf(key.apiKey);
    // The revocation's broadcast arrives while the first lookup (made before it) is under way.
    keys.forget(key.keyId);
    answerFirst(holder);
    expect(await checking).toBeNull();
    expect(request).toHaveBeenCalledTimes(2);
    // Nothing stale was cached either.
    expect(await keys.holderOf(key.apiKey)).toBeNull();
  });

  it('tells its listeners of each revocation', () => {
    const keys = new AccountKeys({ request: jest.fn() } as unknown as NatsRpcClient, quietNats);
    const heard: string[] = [];
    const stop = keys.onRevoked((keyId) => heard.push(keyId));
    keys.forget('k1');
    stop();
    keys.forget('k2');
    expect(heard).toEqual(['k1']);
  });
});
