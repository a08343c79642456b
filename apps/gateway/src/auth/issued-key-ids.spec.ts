import type { Msg, NatsConnection, Status, SubscriptionOptions } from 'nats';
import { SEARCHES_SUBJECTS, type IssuedKeyIdsPage } from '@immo/contracts';
import type { NatsRpcClient } from '@immo/service-kit';
import { until } from '@immo/testing';
import { IssuedKeyIds } from './issued-key-ids';

/** A NATS connection driven by hand: broadcasts, status changes and the answer to each flush. */
class HandDrivenNats {
  private readonly callbacks = new Map<string, (error: Error | null, message: Msg) => void>();
  private readonly statuses: Status[] = [];
  private wakeStatus: (() => void) | null = null;
  /** Run when a flush is asked for, before it resolves (a broadcast read before the PONG). */
  readonly beforePong: (() => void)[] = [];
  flushes = 0;

  subscribe(subject: string, options: SubscriptionOptions) {
    this.callbacks.set(subject, options.callback as (error: Error | null, message: Msg) => void);
    return { unsubscribe: () => this.callbacks.delete(subject) };
  }

  broadcast(subject: string, payload: unknown): void {
    this.callbacks.get(subject)?.(null, { string: () => JSON.stringify(payload) } as Msg);
  }

  async flush(): Promise<void> {
    this.flushes++;
    await Promise.resolve();
    this.beforePong.shift()?.();
  }

  emit(type: string): void {
    this.statuses.push({ type, data: '' } as Status);
    this.wakeStatus?.();
  }

  status(): AsyncIterable<Status> {
    return { [Symbol.asyncIterator]: () => this.statusChanges() };
  }

  private async *statusChanges(): AsyncGenerator<Status> {
    for (;;) {
      const next = this.statuses.shift();
      if (next) yield next;
      else await new Promise<void>((resolve) => (this.wakeStatus = resolve));
    }
  }
}

/** The searches service's answers, from a list of ids, `perPage` at a time. */
function pagesOf(keyIds: string[], perPage: number) {
  return jest.fn(async (subject: string, payload: { after?: string }): Promise<IssuedKeyIdsPage> => {
    expect(subject).toBe(SEARCHES_SUBJECTS.issuedKeyIds);
    const rest = keyIds.filter((id) => payload.after === undefined || id > payload.after);
    const page = rest.slice(0, perPage);
    return { keyIds: page, next: page.length === perPage ? (page[page.length - 1] as string) : null };
  });
}

const settled = (condition: () => boolean): Promise<void> => until(condition, 2000, 1);

describe('IssuedKeyIds', () => {
  let started: IssuedKeyIds[] = [];
  const start = (request: jest.Mock, nats: HandDrivenNats) => {
    const ids = new IssuedKeyIds({ request } as unknown as NatsRpcClient, nats as unknown as NatsConnection, 1);
    ids.start();
    started.push(ids);
    return ids;
  };
  afterEach(() => {
    for (const ids of started) ids.onApplicationShutdown();
    started = [];
  });

  it('lets every id through until the ids are loaded, then refuses ids never issued without any request', async () => {
    const nats = new HandDrivenNats();
    const request = pagesOf(['000000000001', '000000000002', '000000000003'], 2);
    const ids = start(request, nats);
    expect(ids.mayBeIssued('ffffffffffff')).toBe(true);
    await settled(() => ids.known);
    expect(request.mock.calls.map(([, payload]) => payload)).toEqual([{}, { after: '000000000002' }]);
    expect(ids.mayBeIssued('000000000003')).toBe(true);
    const calls = request.mock.calls.length;
    for (let i = 0; i < 50; i++) expect(await ids.mayBeIssued(`a${String(i).padStart(11, '0')}`)).toBe(false);
    expect(request.mock.calls.length).toBe(calls);
    expect(ids.lookupsAvoided).toBe(50);
  });

  it('keeps the ids issued while the pages are read, and each issued later', async () => {
    const nats = new HandDrivenNats();
    let answerFirstPage: (page: IssuedKeyIdsPage) => void = () => undefined;
    const request = jest.fn(() => new Promise<IssuedKeyIdsPage>((resolve) => (answerFirstPage = resolve)));
    const ids = start(request, nats);
    nats.broadcast(SEARCHES_SUBJECTS.keyIssued, { keyId: 'during000001' });
    answerFirstPage({ keyIds: ['before000001'], next: null });
    await settled(() => ids.known);
    nats.broadcast(SEARCHES_SUBJECTS.keyIssued, { keyId: 'after0000001' });
    expect([ids.mayBeIssued('before000001'), ids.mayBeIssued('during000001'), ids.mayBeIssued('after0000001')]).toEqual([true, true, true]);
    expect(ids.size).toBe(3);
  });

  it('lets an id through when its broadcast is read during the round trip begun for it (a key issued through another gateway a moment ago)', async () => {
    const nats = new HandDrivenNats();
    const ids = start(pagesOf([], 10), nats);
    await settled(() => ids.known);
    nats.beforePong.push(() => nats.broadcast(SEARCHES_SUBJECTS.keyIssued, { keyId: 'justissued01' }));
    expect(await ids.mayBeIssued('justissued01')).toBe(true);
    expect(ids.lookupsAvoided).toBe(0);
  });

  it('shares a round trip between the checks waiting for one, never one begun before a check', async () => {
    const nats = new HandDrivenNats();
    const ids = start(pagesOf([], 10), nats);
    await settled(() => ids.known);
    const first = ids.mayBeIssued('guess0000001');
    // Asked while the first round trip is under way: they wait for the next one, and share it.
    await Promise.resolve();
    const later = [ids.mayBeIssued('guess0000002'), ids.mayBeIssued('guess0000003'), ids.mayBeIssued('guess0000004')];
    expect(await Promise.all([first, ...later])).toEqual([false, false, false, false]);
    expect(nats.flushes).toBe(2);
  });

  it('lets every id through from a disconnection until the ids are loaded again after the reconnection, and retries a failed load', async () => {
    const nats = new HandDrivenNats();
    const served = ['000000000001'];
    let failures = 1;
    const request = jest.fn(async (): Promise<IssuedKeyIdsPage> => {
      if (failures-- > 0) throw new Error('no responders');
      return { keyIds: [...served], next: null };
    });
    const ids = start(request, nats);
    await settled(() => ids.known);
    expect(request).toHaveBeenCalledTimes(2);
    nats.emit('disconnect');
    await settled(() => !ids.known);
    // Issued while this gateway was away: its broadcast never came.
    served.push('000000000002');
    expect(ids.mayBeIssued('000000000002')).toBe(true);
    nats.emit('reconnect');
    await settled(() => ids.known);
    expect(ids.mayBeIssued('000000000002')).toBe(true);
    expect(await ids.mayBeIssued('000000000003')).toBe(false);
  });
});
