import { connect, type KV, type NatsConnection } from 'nats';
import { startNatsServer, until, type RunningNatsServer } from '@immo/testing';
import { IngestionLease, type LeaseEvents } from './ingestion-lease';

const TTL_MS = 1_500;

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
    const lease = await IngestionLease.open(nats, holder, events, { ttlMs: TTL_MS });
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

  it('is surely held only within its time to live (less a fifth) of the last renewal sent, by the holder\'s clock', async () => {
    let clock = Date.now();
    const lease = await IngestionLease.open(nats, 'stalled', { acquired: () => undefined, lost: () => undefined }, { ttlMs: 60_000, now: () => clock });
    leases.push(lease);
    expect(lease.surelyHeld()).toBe(false);
    lease.start();
    await until(() => lease.held);
    expect(lease.surelyHeld()).toBe(true);
    // A pause of most of the time to live without a renewal (timers do not run in a stalled process).
    clock += 47_000;
    expect([lease.held, lease.surelyHeld()]).toEqual([true, true]);
    clock += 2_000;
    expect([lease.held, lease.surelyHeld()]).toEqual([true, false]);
  });

  /** Instance `a` holding the lease, then its key gone as if the server forgot it: the next renewal's revision check fails. */
  async function keyGoneUnderA(): Promise<{ a: IngestionLease; log: string[]; kv: KV }> {
    const log: string[] = [];
    const a = await open('a', logTo(log, 'a'));
    a.start();
    await until(() => a.held);
    const kv = await nats.jetstream().views.kv('listings_leases');
    await kv.purge('ingestion');
    return { a, log, kv };
  }

  it('keeps its lease, without letting go, when the key vanished under it', async () => {
    const { a, log, kv } = await keyGoneUnderA();
    let released = false;
    const deadline = Date.now() + TTL_MS;
    while (Date.now() < deadline) {
      if (!a.held) released = true;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(released).toBe(false);
    expect(log).toEqual(['a acquired']);
    // The renewals go on from the key taken back.
    const entry = await kv.get('ingestion');
    expect(entry?.operation).toBe('PUT');
    expect(JSON.parse(entry?.string() ?? '{}')).toEqual({ holder: 'a' });
  });

  it('lets go when, the key gone, another instance took the lease first', async () => {
    const { a, log, kv } = await keyGoneUnderA();
    await kv.create('ingestion', new TextEncoder().encode(JSON.stringify({ holder: 'b' })));
    await until(() => !a.held, 2 * TTL_MS);
    expect(log).toEqual(['a acquired', 'a lost']);
    expect(JSON.parse((await kv.get('ingestion'))?.string() ?? '{}')).toEqual({ holder: 'b' });
  });
});
