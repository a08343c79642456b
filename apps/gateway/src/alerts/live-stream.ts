/**
 * One client's Server-Sent Events stream of a search's notifications. It subscribes to the
 * search's live subject first and only then reads what it missed (after `Last-Event-ID`), so a
 * notification recorded between the two is neither lost nor sent twice: the ones sent are
 * remembered by id while the missed ones are written.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { NatsConnection, Subscription } from 'nats';
import { NOTIFIER_SUBJECTS, type LiveNotification } from '@immo/contracts';
import type { ServiceClient } from '../rpc/service-client';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;
/** What a client asks of the browser's EventSource before it reconnects. */
const RECONNECT_MS = 3_000;
/** Notifications resent at most on resume. */
const RESUME_LIMIT = 500;
/** How often a stream's API key is checked again (a revocation whose broadcast was lost). */
const KEY_CHECK_MS = 2_500;

/** Whether the key a stream was opened with still holds, and a way to hear of its revocation at once. */
export interface StreamKey {
  stillValid(): Promise<boolean>;
  onRevoked(listener: () => void): () => void;
}

/** The streams open in this process, ended when it stops (see `endLiveStreams`). */
const openStreams = new Set<ServerResponse>();

/** Ends every open stream; EventSource clients reconnect (to another replica) and resume with Last-Event-ID. */
export function endLiveStreams(): void {
  for (const stream of openStreams) stream.end(': the server is stopping; reconnect\n\n');
  openStreams.clear();
}

export function sseEvent(notification: LiveNotification): string {
  // The payload is JSON from JSON.stringify: one line, so one `data:` field carries it.
  return `id: ${notification.id}\nevent: ${notification.kind}\ndata: ${notification.payload}\n\n`;
}

export class LiveStream {
  constructor(
    private readonly nats: NatsConnection,
    private readonly services: ServiceClient,
    private readonly searchId: string,
    /** Null for a configured key (they are not revoked). */
    private readonly key: StreamKey | null = null,
  ) {}

  async serve(reply: FastifyReply, resumeAfter: string | null): Promise<void> {
    const raw = reply.raw;
    const held: LiveNotification[] = [];
    let resuming = true;
    // Ids are remembered only to bridge the resume; afterwards each live message is new.
    let sent: Set<string> | null = new Set<string>();
    const write = (notification: LiveNotification) => {
      if (sent !== null) {
        if (sent.has(notification.id)) return;
        sent.add(notification.id);
      }
      raw.write(sseEvent(notification));
    };
    const subscription: Subscription = this.nats.subscribe(NOTIFIER_SUBJECTS.live(this.searchId), {
      callback: (error, message) => {
        if (error) return;
        let notification: LiveNotification;
        try {
          notification = message.json<LiveNotification>();
        } catch {
          return;
        }
        if (resuming) held.push(notification);
        else write(notification);
      },
    });
    await this.nats.flush();

    // The missed ones are read before answering, so a failure is still an ordinary HTTP error.
    let missed: LiveNotification[] = [];
    try {
      if (resumeAfter !== null) {
        missed = await this.services.request<LiveNotification[]>(NOTIFIER_SUBJECTS.recentNotifications, { searchId: this.searchId, afterId: resumeAfter, limit: RESUME_LIMIT });
      }
    } catch (error) {
      subscription.unsubscribe();
      throw error;
    }

    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(`retry: ${RECONNECT_MS}\n: notifications of /searches/${this.searchId}\n\n`);
    for (const notification of missed) write(notification);
    resuming = false;
    for (const notification of held.splice(0)) write(notification);
    sent = null;

    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    openStreams.add(raw);
    // A revoked key ends its streams: at once on the broadcast, or at the next check.
    const revoked = () => raw.end(': the API key of this stream was revoked\n\n');
    const stopHearing = this.key?.onRevoked(revoked) ?? (() => undefined);
    const check = this.key === null ? null : setInterval(() => void this.key?.stillValid().then((valid) => valid || revoked(), () => undefined), KEY_CHECK_MS);
    check?.unref();
    raw.on('close', () => {
      openStreams.delete(raw);
      clearInterval(heartbeat);
      if (check) clearInterval(check);
      stopHearing();
      subscription.unsubscribe();
    });
  }
}
