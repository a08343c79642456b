import type { NatsConnection } from 'nats';
import { SEARCHES_SUBJECTS } from '@immo/contracts';
import type { RecordedEvent } from '@immo/event-store';
import { KeyAnnouncements } from './key-announcements';

const event = (type: string, data: Record<string, unknown>): RecordedEvent => ({ id: 'e1', type, data, metadata: {}, streamName: 'account-1', revision: 0, position: 1, createdAt: new Date(0) });

/** A connection that records what is published and answers each flush when told to. */
function recordingNats() {
  const published: [string, unknown][] = [];
  const pongs: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const nats = {
    publish: (subject: string, payload: string) => published.push([subject, JSON.parse(payload)]),
    flush: () => new Promise<void>((resolve, reject) => pongs.push({ resolve, reject })),
  };
  return { nats: nats as unknown as NatsConnection, published, pongs };
}

describe('KeyAnnouncements', () => {
  it('broadcasts issued and revoked key ids, and nothing for other events', () => {
    const { nats, published } = recordingNats();
    const announcements = new KeyAnnouncements(nats);
    expect(announcements.announce(event('ApiKeyIssued', { accountId: 'a', keyId: '0123456789ab', digest: 'd' }))).toBe(true);
    expect(announcements.announce(event('ApiKeyRevoked', { accountId: 'a', keyId: '0123456789ab' }))).toBe(true);
    expect(announcements.announce(event('AccountCreated', { accountId: 'a', name: 'n' }))).toBe(false);
    expect(published).toEqual([
      [SEARCHES_SUBJECTS.keyIssued, { keyId: '0123456789ab' }],
      [SEARCHES_SUBJECTS.keyRevoked, { keyId: '0123456789ab' }],
    ]);
  });

  it('says the broadcasts are delivered only once the NATS server answered a round trip after them, and never fails a command for it', async () => {
    const { nats, pongs } = recordingNats();
    const announcements = new KeyAnnouncements(nats);
    let delivered = false;
    const waiting = announcements.delivered().then(() => (delivered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivered).toBe(false);
    pongs.shift()?.resolve();
    await waiting;
    expect(delivered).toBe(true);

    const failing = announcements.delivered();
    pongs.shift()?.reject(new Error('connection closed'));
    await expect(failing).resolves.toBeUndefined();
  });
});
