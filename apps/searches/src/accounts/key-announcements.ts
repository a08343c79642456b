import type { NatsConnection } from 'nats';
import { SEARCHES_SUBJECTS, type KeyIssuedMessage, type KeyRevokedMessage } from '@immo/contracts';
import type { RecordedEvent } from '@immo/event-store';

/**
 * What gateways hear of keys, as core NATS broadcasts published once the event is committed to
 * the read models: a revocation drops the key from every gateway's cache at once; an issue adds
 * the key id to the ids every gateway knows (a gateway refuses ids it does not know without asking
 * this service, so guessed keys cost it no request).
 */
export class KeyAnnouncements {
  constructor(private readonly nats: NatsConnection) {}

  /** Publishes what a committed event tells gateways; false for an event that tells them nothing. */
  announce(event: RecordedEvent): boolean {
    if (event.type === 'ApiKeyIssued') {
      const message: KeyIssuedMessage = { keyId: (event.data as { keyId: string }).keyId };
      this.nats.publish(SEARCHES_SUBJECTS.keyIssued, JSON.stringify(message));
      return true;
    }
    if (event.type === 'ApiKeyRevoked') {
      const message: KeyRevokedMessage = { keyId: (event.data as { keyId: string }).keyId };
      this.nats.publish(SEARCHES_SUBJECTS.keyRevoked, JSON.stringify(message));
      return true;
    }
    return false;
  }

  /**
   * Resolves once the NATS server has read every broadcast published so far (a PING answered
   * after them). The answer to the issuing command leaves on another connection (the
   * microservice's), which the server reads independently: waiting for this first means the
   * server has handed the broadcast to every gateway's connection before it even sees the answer,
   * so no client holding the new key can reach a gateway that has not been sent its id. A failed
   * flush (NATS gone) does not fail the command: the key is issued, and gateways that missed the
   * broadcast load the ids again when they reconnect.
   */
  async delivered(): Promise<void> {
    await this.nats.flush().catch(() => undefined);
  }
}
