/**
 * How many gateways run now: each one keeps a key of its own in a NATS KV bucket whose entries
 * expire, and counts the keys. Rate limits are shared through NATS only when more than one runs,
 * so a single gateway pays no round trip per request.
 */
import { Logger } from '@nestjs/common';
import type { KV, NatsConnection } from 'nats';
import { whileJetStreamSettles } from '@immo/event-store';

const BUCKET = 'gateway_presence';
const HEARTBEAT_MS = 3_000;
/** A gateway that stopped heartbeating is forgotten after this long. */
const EXPIRES_MS = 10_000;

export class GatewayPresence {
  private readonly logger = new Logger('GatewayPresence');
  private timer: NodeJS.Timeout | null = null;
  private count = 1;

  private constructor(
    private readonly kv: KV,
    private readonly instance: string,
  ) {}

  static async open(nats: NatsConnection, instance: string, replicas = 1): Promise<GatewayPresence> {
    const kv = await whileJetStreamSettles(() => nats.jetstream().views.kv(BUCKET, { ttl: EXPIRES_MS, history: 1, replicas }));
    const presence = new GatewayPresence(kv, instance.replace(/[^-/_=.a-zA-Z0-9]/g, '_'));
    await presence.beat();
    presence.timer = setInterval(() => void presence.beat(), HEARTBEAT_MS);
    presence.timer.unref();
    return presence;
  }

  /** Gateways seen in the last heartbeats, this one included. */
  get replicas(): number {
    return this.count;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.kv.delete(this.instance).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      await this.kv.put(this.instance, new TextEncoder().encode(String(Date.now())));
      let seen = 0;
      for await (const _key of await this.kv.keys()) seen++;
      this.count = Math.max(1, seen);
    } catch (error) {
      // NATS is away: keep the last count; the limiter falls back to memory on errors anyway.
      this.logger.warn(`presence heartbeat failed: ${String(error)}`);
    }
  }
}
