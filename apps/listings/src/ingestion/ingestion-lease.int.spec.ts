import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type RunningNatsServer } from '@immo/testing';
import { IngestionLease, type LeaseEvents } from './ingestion-lease';

const TTL_MS = 1_500;

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('IngestionLease (real nats-server)', () => {
  let server: RunningNatsServer;
  let nats: NatsConnection;
  const leases: IngestionLease[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
    nats = await connect({ servers: server.url });
  });
  afterEach(async () => {
    for (const lease of leases.splice(0)) await lease.stop();
  });
  afterAll(async () => {
    await nats?.drain();
    await server?.stop();
  });

  async function open(holder: string, events: LeaseEvents): Promise<IngestionLease> {
    const lease = await IngestionLease.open(nats, holder, events, TTL_MS);
    leases.push(lease);
    return lease;
  }

  const logTo = (log: string[], holder: string): LeaseEvents => ({ acquired: () => void log.push(`${holder} acquired`), lost: () => void log.push(`${holder} lost`) });

  it('is held by one instance at a time, and passes on when its holder stops', async () => {
    const log: string[] = [];
    const a = await open('a', logTo(log, 'a'));
    a.start();
    await until(() => a.held);
    const b = await open('b', logTo(log, 'b'));
    b.start();
    await new Promise((r) => setTimeout(r, TTL_MS));
    expect(b.held).toBe(false);
    await a.stop();
    await until(() => b.held);
    expect(log).toEqual(['a acquired', 'a lost', 'b acquired']);
  });

  it('takes its lease back at once when the key vanished under it, not a renewal period later', async () => {
    const log: string[] = [];
    const at: number[] = [];
    const a = await open('a', { acquired: () => void (log.push('acquired'), at.push(Date.now())), lost: () => void (log.push('lost'), at.push(Date.now())) });
    a.start();
    await until(() => a.held);
    // The key is gone as if the server forgot it: the next renewal's revision check fails.
    const kv = await nats.jetstream().views.kv('listings_leases');
    await kv.purge('ingestion');
    await until(() => log.length === 3, 2 * TTL_MS);
    expect(log).toEqual(['acquired', 'lost', 'acquired']);
    expect(a.held).toBe(true);
    // Taken back in the tick whose renewal failed; the next tick comes a third of the TTL later.
    expect(at[2]! - at[1]!).toBeLessThan(TTL_MS / 6);
  });
});
