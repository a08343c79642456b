/**
 * Whether a search still wants its notifications, asked of the searches service before an
 * attempt and cached briefly. The searches service broadcasts every update, disabling and
 * deletion; the cached answer is dropped then, so a search deleted while deliveries are pending
 * sends nothing more.
 */
import type { NatsConnection, Subscription } from 'nats';
import { SEARCHES_SUBJECTS, type NotificationState, type SearchChangedMessage } from '@immo/contracts';
import type { NatsRpcClient } from '@immo/service-kit';

/** Also bounds how long a missed broadcast (a NATS outage) can leave a stale answer. */
const CACHE_MS = 5_000;

export class SearchStates {
  private readonly cache = new Map<string, { state: NotificationState; readAtMs: number }>();
  private subscription: Subscription | null = null;

  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly now: () => number = Date.now,
  ) {}

  listen(nats: NatsConnection): void {
    this.subscription = nats.subscribe(SEARCHES_SUBJECTS.searchChanged, {
      callback: (error, message) => {
        if (error) return;
        try {
          this.cache.delete((message.json() as SearchChangedMessage).searchId);
        } catch {
          // Not a message of ours: nothing to drop.
        }
      },
    });
  }

  close(): void {
    this.subscription?.unsubscribe();
  }

  async of(searchId: string): Promise<NotificationState> {
    const cached = this.cache.get(searchId);
    if (cached && this.now() - cached.readAtMs < CACHE_MS) return cached.state;
    const state = await this.rpc.request<NotificationState>(SEARCHES_SUBJECTS.notificationState, { searchId });
    this.cache.set(searchId, { state, readAtMs: this.now() });
    return state;
  }

  /** The search's notifications went off: forget it now rather than when the cache expires. */
  forget(searchId: string): void {
    this.cache.delete(searchId);
  }
}
