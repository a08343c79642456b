import { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { ErrorCode, headers, JSONCodec, NatsError, type Msg, type MsgHdrs, type NatsConnection, type RequestOptions, type Subscription, type SubscriptionOptions } from 'nats';
import { rpcErrors, type IngestAdvertsReply, type RpcErrorPayload } from '@immo/contracts';
import { REQUEST_ID_HEADER } from '@immo/service-kit';
import { IngestionGate } from './ingestion-gate';
import { IngestionRouter, LEADER_INGEST_SUBJECT } from './ingestion-router';
import { BATCH_TIME_MS, type BatchOptions, type IngestionService } from './ingestion.service';

const json = JSONCodec<unknown>();
const GATE_WAIT_MS = 5000;

type Callback = NonNullable<SubscriptionOptions['callback']>;

/** The two NatsConnection methods the router uses, recorded. */
class FakeNats {
  readonly requests: { subject: string; payload: unknown; opts: RequestOptions | undefined }[] = [];
  readonly subscriptions: { subject: string; callback: Callback; unsubscribe: jest.Mock }[] = [];
  answer: (subject: string) => Promise<Msg> = () => Promise.reject(new Error('no answer configured'));

  request(subject: string, data?: Uint8Array, opts?: RequestOptions): Promise<Msg> {
    this.requests.push({ subject, payload: data ? json.decode(data) : undefined, opts });
    return this.answer(subject);
  }

  subscribe(subject: string, opts?: SubscriptionOptions): Subscription {
    const callback = opts?.callback;
    if (!callback) throw new Error('the router is expected to subscribe with a callback');
    const unsubscribe = jest.fn();
    this.subscriptions.push({ subject, callback, unsubscribe });
    return { unsubscribe } as unknown as Subscription;
  }

  asConnection(): NatsConnection {
    return this as unknown as NatsConnection;
  }

  /** Delivers a request on the leader subject; resolves with the decoded reply. */
  deliver(body: Uint8Array, error: NatsError | null = null, msgHeaders?: MsgHdrs): { reply: Promise<unknown>; respond: jest.Mock } {
    const subscription = this.subscriptions.at(-1);
    if (!subscription) throw new Error('nothing subscribed');
    let resolve: (value: unknown) => void = () => undefined;
    const reply = new Promise<unknown>((r) => (resolve = r));
    const respond = jest.fn((data: Uint8Array) => {
      resolve(json.decode(data));
      return true;
    });
    subscription.callback(error, { subject: LEADER_INGEST_SUBJECT, data: body, headers: msgHeaders, respond } as unknown as Msg);
    return { reply, respond };
  }
}

function aReply(accepted = 1): IngestAdvertsReply {
  return {
    accepted,
    rejected: 0,
    unchanged: 0,
    results: [{ index: 0, status: 'accepted', advertId: 'a-1', propertyId: 'p-1', events: ['AdvertPublished.v1'], warnings: [] }],
  };
}

function replyMessage(body: unknown): Msg {
  return { data: json.encode(body) } as unknown as Msg;
}

/** The RpcException payload a promise rejects with (fails the test when it is anything else). */
async function rpcErrorOf(promise: Promise<unknown>): Promise<RpcErrorPayload> {
  const error: unknown = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcException);
  return (error as RpcException).getError() as RpcErrorPayload;
}

describe('IngestionRouter', () => {
  const snapshots = [{ site: 'synthetic-portal-a', reference: 'SPA-1' }];
  let nats: FakeNats;
  let gate: IngestionGate;
  let ingest: jest.Mock<Promise<IngestAdvertsReply>, [unknown[], BatchOptions]>;
  let router: IngestionRouter;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    nats = new FakeNats();
    gate = new IngestionGate();
    ingest = jest.fn<Promise<IngestAdvertsReply>, [unknown[], BatchOptions]>().mockResolvedValue(aReply());
    router = new IngestionRouter(nats.asConnection(), { ingest } as unknown as IngestionService, gate);
  });

  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  describe('given this replica leads and the gate is open', () => {
    beforeEach(() => {
      gate.openNow();
      router.lead();
    });

    it('when a batch arrives, then it is ingested here and not forwarded', async () => {
      const arrived = Date.now();
      const reply = await router.ingest(snapshots);

      expect(reply).toEqual(aReply());
      expect(ingest).toHaveBeenCalledWith(snapshots, { deadline: expect.any(Number), requestId: null });
      // The batch has its time from now to answer.
      const deadline = ingest.mock.calls[0]?.[1]?.deadline ?? 0;
      expect(deadline - arrived).toBeGreaterThanOrEqual(BATCH_TIME_MS);
      expect(deadline - Date.now()).toBeLessThanOrEqual(BATCH_TIME_MS);
      expect(nats.requests).toEqual([]);
    });

    it('when a batch arrives with a request id, then it is ingested with that id', async () => {
      await router.ingest(snapshots, 'crawl-0007');

      expect(ingest).toHaveBeenCalledWith(snapshots, { deadline: expect.any(Number), requestId: 'crawl-0007' });
    });

    it('when the ingestion fails, then the failure reaches the caller unchanged', async () => {
      const failure = new RpcException(rpcErrors.badRequest('bad batch'));
      ingest.mockRejectedValueOnce(failure);

      await expect(router.ingest(snapshots)).rejects.toBe(failure);
    });
  });

  describe('given this replica leads and the gate is closed', () => {
    beforeEach(() => {
      jest.useFakeTimers();
      gate.close('catching up with the log');
      router.lead();
    });

    it('when it stays closed past the wait, then the batch is refused with 503 "retry later" naming why, and not ingested', async () => {
      const result = rpcErrorOf(router.ingest(snapshots));

      await jest.advanceTimersByTimeAsync(GATE_WAIT_MS);
      const error = await result;

      expect(error.status).toBe(503);
      expect(error.detail).toContain('catching up with the log');
      expect(error.detail).toMatch(/retry later/);
      expect(ingest).not.toHaveBeenCalled();
    });

    it('when a batch with a request id is refused, then the refusal is logged with that id', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const result = rpcErrorOf(router.ingest(snapshots, 'crawl-0008'));

      await jest.advanceTimersByTimeAsync(GATE_WAIT_MS);
      await result;

      expect(warn).toHaveBeenCalledWith({ msg: 'batch refused: catching up with the log', requestId: 'crawl-0008' });
    });

    it('when it opens within the wait, then the batch is ingested once it opens, with what is left of its time', async () => {
      const arrived = Date.now();
      let done = false;
      const result = router.ingest(snapshots).then((reply) => {
        done = true;
        return reply;
      });

      await jest.advanceTimersByTimeAsync(GATE_WAIT_MS - 1);
      expect(done).toBe(false);
      expect(ingest).not.toHaveBeenCalled();
      gate.openNow();

      await expect(result).resolves.toEqual(aReply());
      expect(ingest).toHaveBeenCalledTimes(1);
      // The wait for the gate counted against the batch's time.
      expect(ingest.mock.calls[0]?.[1]?.deadline).toBe(arrived + BATCH_TIME_MS);
    });
  });

  describe('given this replica does not lead', () => {
    it('when a batch arrives, then it is forwarded to the leader subject and the leader reply is returned', async () => {
      nats.answer = () => Promise.resolve(replyMessage({ ok: aReply(3) }));

      const reply = await router.ingest(snapshots);

      expect(reply).toEqual(aReply(3));
      expect(nats.requests).toHaveLength(1);
      expect(nats.requests[0]?.subject).toBe(LEADER_INGEST_SUBJECT);
      expect(nats.requests[0]?.payload).toEqual({ snapshots });
      expect(ingest).not.toHaveBeenCalled();
    });

    it('when forwarding, then the request timeout is set and below the gateway 15 s', async () => {
      nats.answer = () => Promise.resolve(replyMessage({ ok: aReply() }));

      await router.ingest(snapshots);

      const timeout = nats.requests[0]?.opts?.timeout;
      expect(timeout).toBeGreaterThan(GATE_WAIT_MS);
      expect(timeout).toBeLessThan(15_000);
    });

    it('when the leader answers an error, then it is rethrown as an RpcException with that payload', async () => {
      const payload = rpcErrors.badRequest('snapshots must be an array', [{ propertyPath: 'snapshots', message: 'must be an array' }]);
      nats.answer = () => Promise.resolve(replyMessage({ error: payload }));

      expect(await rpcErrorOf(router.ingest(snapshots))).toEqual(payload);
    });

    it('when no replica answers the leader subject, then the batch is refused with 503 "retry later"', async () => {
      nats.answer = () => Promise.reject(NatsError.errorForCode(ErrorCode.NoResponders));

      const error = await rpcErrorOf(router.ingest(snapshots));

      expect(error.status).toBe(503);
      expect(error.detail).toMatch(/retry later/);
    });

    it('when the batch came with a request id, then the leader is sent that id with it', async () => {
      nats.answer = () => Promise.resolve(replyMessage({ ok: aReply() }));

      await router.ingest(snapshots, 'crawl-0042');

      expect(nats.requests[0]?.opts?.headers?.get(REQUEST_ID_HEADER)).toBe('crawl-0042');
    });

    it('when the batch came without a request id, then the leader is sent none', async () => {
      nats.answer = () => Promise.resolve(replyMessage({ ok: aReply() }));

      await router.ingest(snapshots);

      expect(nats.requests[0]?.opts?.headers).toBeUndefined();
    });

    it('when the request times out, then the NATS error is rethrown as is (not taken for "no leader")', async () => {
      const timeout = NatsError.errorForCode(ErrorCode.Timeout);
      nats.answer = () => Promise.reject(timeout);

      await expect(router.ingest(snapshots)).rejects.toBe(timeout);
    });

    it('when the request fails otherwise, then the error is rethrown as is', async () => {
      const failure = new Error('connection closed');
      nats.answer = () => Promise.reject(failure);

      await expect(router.ingest(snapshots)).rejects.toBe(failure);
    });
  });

  describe('when it takes the lead', () => {
    it('then it subscribes to the leader subject once, however often it is told', () => {
      router.lead();
      router.lead();

      expect(nats.subscriptions).toHaveLength(1);
      expect(nats.subscriptions[0]?.subject).toBe(LEADER_INGEST_SUBJECT);
    });

    it('then a forwarded batch is ingested and answered with {ok}', async () => {
      gate.openNow();
      router.lead();

      const { reply } = nats.deliver(json.encode({ snapshots }));

      expect(await reply).toEqual({ ok: aReply() });
      // The leader's own time for the batch: under the follower's forwarding timeout.
      expect(ingest).toHaveBeenCalledWith(snapshots, { deadline: expect.any(Number), requestId: null });
    });

    it('then a forwarded batch is ingested with the request id it came with, and one without a usable id with none', async () => {
      gate.openNow();
      router.lead();
      const withId = headers();
      withId.set(REQUEST_ID_HEADER, 'crawl-0042');
      const unusable = headers();
      unusable.set(REQUEST_ID_HEADER, 'x'.repeat(500));

      await nats.deliver(json.encode({ snapshots }), null, withId).reply;
      await nats.deliver(json.encode({ snapshots }), null).reply;
      await nats.deliver(json.encode({ snapshots }), null, unusable).reply;

      expect(ingest.mock.calls.map(([, batch]) => batch?.requestId)).toEqual(['crawl-0042', null, null]);
    });

    it('then a forwarded batch the ingestion refuses with an RPC error is answered with {error} carrying that error', async () => {
      const payload = rpcErrors.conflict('advert changed concurrently');
      ingest.mockRejectedValueOnce(new RpcException(payload));
      gate.openNow();
      router.lead();

      const { reply } = nats.deliver(json.encode({ snapshots }));

      expect(await reply).toEqual({ error: payload });
    });

    it('then an unexpected ingestion failure is answered with a 503 {error} naming it', async () => {
      ingest.mockRejectedValueOnce(new Error('event store down'));
      gate.openNow();
      router.lead();

      const { reply } = nats.deliver(json.encode({ snapshots }));

      const answer = (await reply) as { error: RpcErrorPayload };
      expect(answer.error.status).toBe(503);
      expect(answer.error.detail).toContain('event store down');
      expect(answer.error.detail).toMatch(/retry later/);
    });

    it('then an RpcException whose error is not a problem payload is answered as 503, not passed on', async () => {
      ingest.mockRejectedValueOnce(new RpcException('plain message'));
      gate.openNow();
      router.lead();

      const { reply } = nats.deliver(json.encode({ snapshots }));

      expect(((await reply) as { error: RpcErrorPayload }).error.status).toBe(503);
    });

    it('then a request that is not JSON is still answered (with an error) rather than left to time out', async () => {
      gate.openNow();
      router.lead();

      const { reply } = nats.deliver(new TextEncoder().encode('not json'));

      expect(await reply).toEqual({ error: expect.objectContaining({ status: 503 }) });
      expect(ingest).not.toHaveBeenCalled();
    });

    it('then a forwarded batch waiting on a closed gate is answered with the 503 "retry later" error', async () => {
      jest.useFakeTimers();
      gate.close('catching up with the log');
      router.lead();

      const { reply } = nats.deliver(json.encode({ snapshots }));
      await jest.advanceTimersByTimeAsync(GATE_WAIT_MS);

      const answer = (await reply) as { error: RpcErrorPayload };
      expect(answer.error.status).toBe(503);
      expect(answer.error.detail).toContain('catching up with the log');
      expect(ingest).not.toHaveBeenCalled();
    });

    it('then a subscription error is ignored: nothing is ingested nor answered', async () => {
      gate.openNow();
      router.lead();

      const { respond } = nats.deliver(json.encode({ snapshots }), NatsError.errorForCode(ErrorCode.PermissionsViolation));
      await new Promise((resolve) => setImmediate(resolve));

      expect(respond).not.toHaveBeenCalled();
      expect(ingest).not.toHaveBeenCalled();
    });
  });

  describe('given it leads, when it follows again', () => {
    it('then it unsubscribes and forwards the next batch instead of ingesting it', async () => {
      gate.openNow();
      router.lead();
      nats.answer = () => Promise.resolve(replyMessage({ ok: aReply(2) }));

      router.follow();
      const reply = await router.ingest(snapshots);

      expect(nats.subscriptions[0]?.unsubscribe).toHaveBeenCalledTimes(1);
      expect(reply).toEqual(aReply(2));
      expect(ingest).not.toHaveBeenCalled();
    });

    it('then taking the lead again subscribes anew', () => {
      router.lead();
      router.follow();

      router.lead();

      expect(nats.subscriptions).toHaveLength(2);
    });

    it('then following without having led does nothing', () => {
      expect(() => router.follow()).not.toThrow();
      expect(nats.subscriptions).toEqual([]);
    });
  });
});
