/**
 * How many gateways run now: each one keeps a key of its own in a NATS KV bucket, written again
 * at every heartbeat, and watches the bucket. A gateway that starts is counted by the others as
 * soon as its first heartbeat lands (not at their next one: meanwhile each would have granted a
 * whole budget of its own); one that stops deletes its key, and one that died is forgotten once
 * its last heartbeat is older than the expiry. Rate limits are shared through NATS only when more
 * than one runs, so a single gateway pays no round trip per request.
 */
import { NATS_BUCKETS } from '@immo/contracts';
import { Logger } from '@nestjs/common';
import type { KV, NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';

const BUCKET = NATS_BUCKETS.gatewayPresence;
const HEARTBEAT_MS = 3_000;
/** A gateway that stopped heartbeating is forgotten after this long. */
const EXPIRES_MS = 10_000;

export class GatewayPresence {
  private readonly logger = new Logger('GatewayPresence');
  private timer: NodeJS.Timeout | null = null;
  /** Each gateway's last heartbeat (epoch ms, as NATS stored it). */
  private readonly lastBeats = new Map<string, number>();
  private watch: { stop(): void } | null = null;
  private closed = false;

  private constructor(
    private readonly kv: KV,
    private readonly instance: string,
  ) {}

  static async open(nats: NatsConnection, instance: string, replicas = 1): Promise<GatewayPresence> {
    const kv = await whileJetStreamSettles(() => nats.jetstream().views.kv(BUCKET, { ttl: EXPIRES_MS, history: 1, replicas }));
    const presence = new GatewayPresence(kv, instance.replace(/[^-/_=.a-zA-Z0-9]/g, '_'));
    await presence.beat();
    await presence.follow();
    presence.timer = setInterval(() => void presence.beat(), HEARTBEAT_MS);
    presence.timer.unref();
    return presence;
  }

  /** Gateways seen in the last heartbeats, this one included. */
  get replicas(): number {
    const since = Date.now() - EXPIRES_MS;
    let count = 0;
    for (const [instance, beat] of this.lastBeats) {
      if (beat >= since || instance === this.instance) count++;
    }
    return Math.max(1, count);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watch?.stop();
    await this.kv.delete(this.instance).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      await this.kv.put(this.instance, new TextEncoder().encode(String(Date.now())));
    } catch (error) {
      // NATS is away: keep the last count; the limiter falls back to memory on errors anyway.
      this.logger.warn(`presence heartbeat failed: ${String(error)}`);
    }
  }

  /** Resolves once the heartbeats stored so far are read; follows new ones until closed. */
  private async follow(): Promise<void> {
    let initialised!: () => void;
    const ready = new Promise<void>((resolve) => (initialised = resolve));
    const entries = await this.kv.watch({ initializedFn: () => initialised() });
    this.watch = entries;
    void (async () => {
      for await (const entry of entries) {
        if (entry.operation === 'PUT') this.lastBeats.set(entry.key, entry.created.getTime());
        else this.lastBeats.delete(entry.key);
      }
      initialised();
      if (this.closed) return;
      // The watch ended under us (NATS gone for good on this connection): follow again shortly.
      this.logger.warn('presence watch ended; following again');
      setTimeout(() => void this.follow().catch(() => undefined), HEARTBEAT_MS).unref();
    })().catch((error) => this.logger.warn(`presence watch failed: ${String(error)}`));
    await ready;
  }
}
